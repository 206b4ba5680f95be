"""Lines that decode text into a shell or compute the program they run, for
``bench_decisions.py``: each runs a dangerous program when bash runs it (``rm -rf ~``,
``sudo rm -rf /``, ``sudo reboot``, ``sudo shutdown``)."""

from __future__ import annotations

HIDDEN_LINES = (
    # decoded, reversed or translated text fed to a shell
    "echo cm0gLXJmIH4= | base64 -d | sh",
    "echo c3VkbyBybSAtcmYgLw== | base64 -d | bash",
    "echo 'rm -rf ~' | rev | rev | sh",
    "eval \"$(echo 'fhqb ez -es /' | tr 'a-z' 'n-za-m')\"",
    "sh -c \"$(echo cm0gLXJmIH4= | base64 -d)\"",
    "bash <<< \"$(echo cm0gLXJmIH4= | base64 --decode)\"",
    "eval \"$(echo c3VkbyByZWJvb3Q= | base64 -d)\"",
    "x=$(echo c3VkbyByZWJvb3Q= | base64 -d); $x",
    "x=$(echo 'fe- mr' | rev); eval \"$x ~\"",
    "c=$(printf '\\162\\155'); $c -rf ~",
    # names computed by the shell itself
    "x=r; y=m; $x$y -rf ~",
    "set -- rm -rf ~; \"$@\"",
    "printf -v c 'r%s' m; $c -rf ~",
    "x=rm; printf -v y '%s' \"$x\"; $y -rf ~",
    "mapfile -t a <<< 'rm'; ${a[0]} -rf ~",
    "mapfile -t cmd < <(printf '%s\\n' rm -rf /); \"${cmd[@]}\"",
    "readarray -t w <<< $'sudo\\nrm\\n-rf\\n/'; \"${w[@]}\"",
    "read -r a b <<< 'rm -rf'; $a $b ~",
    "IFS=: read -r p q <<< 'rm:-rf'; $p $q ~",
    "declare -n r=c; c=rm; $r -rf ~",
    "f() { \"$@\"; }; f rm -rf ~",
    "curl_like() { \"$@\"; }; curl_like sudo shutdown now",
    "let i=0; a=(rm); ${a[i]} -rf ~",
    "t=$(( 1 + 1 )); a=(ls x rm); ${a[t]} -rf ~",
    "c=r; c+=m; $c -rf ~",
    "for c in rm; do $c -rf ~; done",
    "v=rm; eval \"\\$v -rf ~\"",
    "x=$(cut -c1-2 <<< rmdir); $x -rf ~",
    "x=$(sort <<< rm); $x -rf ~",
    "IFS=,; c='rm,-rf,/'; $c",
)
