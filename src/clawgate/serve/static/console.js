// The queue updates itself from /events (server-sent events); the countdowns to each request's
// expiry tick every second, on the service's clock; everything else is plain forms.
(function () {
  "use strict";
  var main = document.querySelector("main");
  var skew = 0; // the service's clock minus the browser's, in seconds
  function setClock(now) {
    if (now) { skew = now - Date.now() / 1000; }
  }
  function words(seconds) {
    var whole = Math.max(Math.floor(seconds), 0);
    var h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    if (h) { return h + " h " + m + " min"; }
    return m ? m + " min " + s + " s" : s + " s";
  }
  function tick() {
    var now = Date.now() / 1000 + skew;
    var spans = document.querySelectorAll(".countdown[data-expires]");
    for (var i = 0; i < spans.length; i++) {
      var left = parseFloat(spans[i].getAttribute("data-expires")) - now;
      var card = spans[i].closest("article");
      if (left > 0) {
        spans[i].textContent = "expires in " + words(left);
        continue;
      }
      spans[i].textContent = "expired: it counts as a deny";
      if (card && !card.classList.contains("expired")) {
        card.classList.add("expired");
        var buttons = card.querySelectorAll("button");
        for (var b = 0; b < buttons.length; b++) { buttons[b].disabled = true; }
      }
    }
  }
  if (main) { setClock(parseFloat(main.getAttribute("data-now"))); }
  tick();
  window.setInterval(tick, 1000);

  var queue = document.getElementById("queue");
  if (!queue || !window.EventSource) { return; }
  var source = new EventSource("/events" + window.location.search);
  source.addEventListener("signed-out", function () {
    source.close();
    window.location.reload();
  });
  // A new page of the queue replaces the old one: what a person was typing (a note) and
  // where the focus was (by id) are carried over to the same request's card.
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    var focused = document.activeElement && document.activeElement.id;
    var typed = {}, inputs = queue.querySelectorAll("input[id]"), i;
    for (i = 0; i < inputs.length; i++) { typed[inputs[i].id] = inputs[i].value; }
    setClock(data.now);
    queue.innerHTML = data.html || '<p id="empty">Nothing is waiting.</p>';
    inputs = queue.querySelectorAll("input[id]");
    for (i = 0; i < inputs.length; i++) {
      if (typed[inputs[i].id]) { inputs[i].value = typed[inputs[i].id]; }
    }
    tick();
    document.title = (data.count ? "(" + data.count + ") " : "") + "Approvals · clawgate";
    if (focused) {
      var again = document.getElementById(focused);
      if (again) { again.focus(); }
    }
  };
})();
