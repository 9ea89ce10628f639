# Sourced by the shell tests that start agentd on port 0: waits (10 s at most) for the
# agentd whose log goes to file $1 to say it listens, and sets $port. The sourcing
# script defines fail().
wait_for_port() {
  port=
  for _ in $(seq 100); do
    port=$(sed -n 's/.*"msg":"listening".*"address":"127.0.0.1:\([0-9]*\)".*/\1/p' "$1")
    [ -n "$port" ] && return 0
    sleep 0.1
  done
  fail "agentd did not listen: $(cat "$1")"
}
