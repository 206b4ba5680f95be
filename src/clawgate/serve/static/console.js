// The queue updates itself from /events (server-sent events); everything else is plain forms.
(function () {
  "use strict";
  var queue = document.getElementById("queue");
  if (!queue || !window.EventSource) { return; }
  var source = new EventSource("/events" + window.location.search);
  source.addEventListener("signed-out", function () {
    source.close();
    window.location.reload();
  });
  source.onmessage = function (event) {
    var data = JSON.parse(event.data);
    var focused = document.activeElement && document.activeElement.id;
    queue.innerHTML = data.html || '<p id="empty">Nothing is waiting.</p>';
    document.title = (data.count ? "(" + data.count + ") " : "") + "Approvals · clawgate";
    if (focused) {
      var again = document.getElementById(focused);
      if (again) { again.focus(); }
    }
  };
})();
