// The CA and server certificate the command makes at start, read back with node:crypto's
// X509Certificate: the CA signed the server certificate, which is for the hosts asked for
// (names and IPv4/IPv6 addresses) and for serving only, valid from an hour ago for a year.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { createCertificates } from "../../src/command/certificates.ts";

describe("createCertificates", () => {
  test("a CA, and a server certificate it signed for the hosts asked for", async () => {
    const now = new Date("2030-06-01T12:00:00Z");
    const certs = await createCertificates({
      hosts: ["sim.test", "127.0.0.1", "::1"],
      now,
      days: 30,
    });
    const ca = new X509Certificate(certs.caCert);
    const server = new X509Certificate(certs.cert);
    assert.equal(ca.ca, true);
    assert.equal(server.ca, false);
    assert.equal(ca.subject, "CN=kinformer-simulator-ca");
    assert.ok(server.checkIssued(ca));
    assert.ok(server.verify(ca.publicKey));
    assert.equal(server.checkHost("sim.test"), "sim.test");
    assert.equal(server.checkHost("other.test"), undefined);
    assert.equal(server.checkIP("127.0.0.1"), "127.0.0.1");
    assert.equal(server.checkIP("::1"), "::1");
    assert.equal(server.checkIP("10.0.0.1"), undefined);
    assert.equal(new Date(server.validFrom).toISOString(), "2030-06-01T11:00:00.000Z");
    assert.equal(new Date(server.validTo).toISOString(), "2030-07-01T12:00:00.000Z");
    assert.ok(server.checkPrivateKey(createPrivateKey(certs.key)));
  });

  test("each call makes a new CA", async () => {
    const [a, b] = await Promise.all([createCertificates(), createCertificates()]);
    assert.notEqual(a.caCert, b.caCert);
    assert.equal(new X509Certificate(a.cert).checkIssued(new X509Certificate(b.caCert)), false);
  });
});
