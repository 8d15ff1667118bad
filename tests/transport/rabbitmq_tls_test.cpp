// RabbitMqTransport over TLS (amqps): a broker of the suite's own with a TLS listener and a
// certificate from a throwaway CA made for the run. The peer's certificate and host name are
// verified by default; a connection the client cannot verify is refused, never used.
#include <gtest/gtest.h>
#include <whizbang/transport/rabbitmq/rabbitmq_transport.hpp>

#include <filesystem>

#include "received.hpp"
#include "support/rabbitmq_broker.hpp"

namespace whizbang::test {
namespace {

// The suite's broker and certificates: a CTest fixture (tests/support/rabbitmq-tls-server.sh).
const int kTlsPort = WHIZBANG_RMQ_TLS_PORT;
const std::filesystem::path kCerts = WHIZBANG_RMQ_TLS_CERTS;

class RabbitMqTlsTests : public ::testing::Test {
 protected:
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
