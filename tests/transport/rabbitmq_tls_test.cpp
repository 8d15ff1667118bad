// RabbitMqTransport over TLS (amqps): a broker of its own with a TLS listener and a certificate
// from a throwaway CA made for the suite. The peer's certificate and host name are verified by
// default; a connection the client cannot verify is refused, never used.
#include <gtest/gtest.h>
#include <unistd.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <cstdlib>
#include <filesystem>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

// Ports of their own (below the restart tests' ten-up block): AMQP P+5, TLS P+8.
const int kPort = WHIZBANG_RMQ_RESTART_PORT - 5;
const int kTlsPort = WHIZBANG_RMQ_RESTART_PORT - 2;
const std::filesystem::path kDir = "/tmp/whizbang-rmq-tls-" + std::to_string(kPort);
const std::filesystem::path kCerts = kDir.string() + "-certs";

bool run(const std::string& command) {
  return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

// A CA, and a server certificate it signed for DNS name "localhost" only.
bool make_certificates(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const std::string d = dir.string();
  return run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + d + "/ca.key -out " + d +
             "/ca.pem -days 2 -subj /CN=whizbang-test-ca") &&
         run("openssl req -x509 -newkey rsa:2048 -nodes -keyout " + d + "/other-ca.key -out " + d +
             "/other-ca.pem -days 2 -subj /CN=someone-else") &&
         run("openssl req -newkey rsa:2048 -nodes -keyout " + d + "/server.key -out " + d +
             "/server.csr -subj /CN=localhost") &&
         run("printf 'subjectAltName=DNS:localhost\\n' > " + d + "/ext.cnf") &&
         run("openssl x509 -req -in " + d + "/server.csr -CA " + d + "/ca.pem -CAkey " + d +
             "/ca.key -CAcreateserial -out " + d + "/server.pem -days 2 -extfile " + d +
             "/ext.cnf");
}

class RabbitMqTlsTests : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_TRUE(make_certificates(kCerts)) << "openssl could not make the test certificates";
    const std::string certs = kCerts.string();
    const std::string conf =
        "listeners.ssl.1 = 127.0.0.1:" + std::to_string(kTlsPort) +
        "\nssl_options.cacertfile = " + certs + "/ca.pem" + "\nssl_options.certfile = " + certs +
        "/server.pem" + "\nssl_options.keyfile = " + certs + "/server.key" +
        "\nssl_options.verify = verify_none" + "\nssl_options.fail_if_no_peer_cert = false";
    setenv("WHIZBANG_RMQ_EXTRA_CONF", conf.c_str(), 1);
    // The TLS listener can open a moment after the AMQP one: `up` waits for both.
    setenv("WHIZBANG_RMQ_WAIT_PORTS", std::to_string(kTlsPort).c_str(), 1);
    const bool up = run(std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " up " + kDir.string() + " " +
                        std::to_string(kPort));
    unsetenv("WHIZBANG_RMQ_EXTRA_CONF");
    unsetenv("WHIZBANG_RMQ_WAIT_PORTS");
    ASSERT_TRUE(up) << "the TLS broker did not start";
  }
  static void TearDownTestSuite() {
    run(std::string(WHIZBANG_RMQ_SERVER_SCRIPT) + " down " + kDir.string() + " " +
        std::to_string(kPort));
    std::filesystem::remove_all(kCerts);
  }

  static RabbitMqOptions tls_options(const std::string& host) {
    auto options =
        rabbitmq_options_from_url("amqps://guest:guest@" + host + ":" + std::to_string(kTlsPort));
    EXPECT_TRUE(options.ok());
    RabbitMqOptions result = *options;
    result.tls.ca_cert_file = (kCerts / "ca.pem").string();
    result.reconnect_initial_delay = std::chrono::milliseconds(50);
    result.consume_poll_interval = std::chrono::milliseconds(50);
    result.connect_timeout = std::chrono::milliseconds(2000);
    return result;
  }
};

TEST_F(RabbitMqTlsTests, VerifiedBroker_PublishAndReceiveOverTls) {
  const RabbitMqOptions options = tls_options("localhost");
  ASSERT_TRUE(options.tls.enabled);
  RabbitMqTransport transport(options);
  EXPECT_TRUE(transport.is_ready());
  const std::string exchange = unique_name("tls.events");
  Received received;
  auto subscription =
      transport.subscribe(unique_name("secure"), {{exchange, ""}}, received.handler());
  ASSERT_TRUE(subscription.ok()) << subscription.status();
  const TransportMessage sent = test_message("tls::events::Sealed", true);
  const absl::Status published = transport.publish({exchange, "tls.events.sealed", {}}, {&sent, 1});
  ASSERT_TRUE(published.ok()) << published;
  ASSERT_TRUE(received.wait_for(1));
  EXPECT_EQ(received.messages().at(0).message_id, sent.message_id);
}

TEST_F(RabbitMqTlsTests, CertificateFromAnotherAuthority_Refused) {
  RabbitMqOptions options = tls_options("localhost");
  options.tls.ca_cert_file = (kCerts / "other-ca.pem").string();
  RabbitMqTransport transport(options);
  EXPECT_FALSE(transport.is_ready());
  const TransportMessage sent = test_message("tls::events::Sealed", true);
  const absl::Status status =
      transport.publish({"tls.events", "tls.events.sealed", {}}, {&sent, 1});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot connect"), std::string_view::npos) << status;
}

TEST_F(RabbitMqTlsTests, HostNameNotInTheCertificate_RefusedUnlessVerificationIsOff) {
  // The certificate names "localhost"; 127.0.0.1 is the same broker under another name.
  RabbitMqOptions options = tls_options("127.0.0.1");
  {
    RabbitMqTransport transport(options);
    EXPECT_FALSE(transport.is_ready());
  }
  options.tls.verify_hostname = false;
  RabbitMqTransport transport(options);
  EXPECT_TRUE(transport.is_ready());
}

}  // namespace
}  // namespace whizbang::test
