#!/usr/bin/env bash
# A throwaway RabbitMQ broker with a TLS listener, for the TLS tests (a CTest fixture, started once
# for the suite). Certificates are made for the run in <dir>-certs: a CA (ca.pem), a server
# certificate it signed for the DNS name "localhost" only (server.pem), and a second CA that
# signed nothing (other-ca.pem): a client that trusts only it must refuse the broker.
#   rabbitmq-tls-server.sh up <dir> <port> <tls port>   certificates, then the broker: AMQP on
#                                                        127.0.0.1:<port>, TLS on <tls port>
#   rabbitmq-tls-server.sh down <dir> <port>            stop it, delete <dir> and the certificates
# The broker itself is rabbitmq-server.sh's (same ports rule: <port>+1 and <port>+2 are its own).
set -euo pipefail

usage="usage: rabbitmq-tls-server.sh up <dir> <port> <tls port> | down <dir> <port>"
command=${1:?$usage}
dir=${2:?$usage}
port=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
certs=$dir-certs # beside <dir>: rabbitmq-server.sh up deletes <dir> and makes it again

make_certificates() {
  rm -rf "$certs"
  mkdir -p "$certs"
  local key="openssl req -newkey rsa:2048 -nodes"
  $key -x509 -keyout "$certs/ca.key" -out "$certs/ca.pem" -days 2 -subj /CN=whizbang-test-ca
  $key -x509 -keyout "$certs/other-ca.key" -out "$certs/other-ca.pem" -days 2 -subj /CN=someone-else
  $key -keyout "$certs/server.key" -out "$certs/server.csr" -subj /CN=localhost
  printf 'subjectAltName=DNS:localhost\n' >"$certs/ext.cnf"
  openssl x509 -req -in "$certs/server.csr" -CA "$certs/ca.pem" -CAkey "$certs/ca.key" \
    -CAcreateserial -out "$certs/server.pem" -days 2 -extfile "$certs/ext.cnf"
}

case "$command" in
  up)
    tls_port=${4:?$usage}
    make_certificates >/dev/null 2>&1 || {
      echo "rabbitmq-tls-server.sh: openssl could not make the test certificates" >&2
      exit 1
    }
    # The broker checks the client's certificate only if it sends one; the tests verify the
    # broker's.
    WHIZBANG_RMQ_EXTRA_CONF="listeners.ssl.1 = 127.0.0.1:$tls_port
ssl_options.cacertfile = $certs/ca.pem
ssl_options.certfile = $certs/server.pem
ssl_options.keyfile = $certs/server.key
ssl_options.verify = verify_none
ssl_options.fail_if_no_peer_cert = false" \
      WHIZBANG_RMQ_WAIT_PORTS=$tls_port \
      exec "$here/rabbitmq-server.sh" up "$dir" "$port"
    ;;
  down)
    "$here/rabbitmq-server.sh" down "$dir" "$port"
    rm -rf "$certs"
    ;;
  *)
    echo "$usage" >&2
    exit 2
    ;;
esac
