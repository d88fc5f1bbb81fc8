/**
 * TLS and mutual TLS: certificates made for the run (test/make_certs.py), a
 * server with --tls-cert/--tls-key, and one that also needs client certificates.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { DuetimeClient, DuetimeError, Unavailable } from "@duetime/client";
import { failure, makeCerts, startServer } from "./server.js";
import type { Server } from "./server.js";

let certs: ReturnType<typeof makeCerts>;
let tls: Server;
let mutual: Server;
const clients: DuetimeClient[] = [];

function client(options: ConstructorParameters<typeof DuetimeClient>[0]): DuetimeClient {
  const made = new DuetimeClient({ timeoutMs: 5_000, retries: 0, ...options });
  clients.push(made);
  return made;
}

before(async () => {
  certs = makeCerts();
  const serving = ["--tls-cert", certs.file("server.pem"), "--tls-key", certs.file("server.key")];
  [tls, mutual] = await Promise.all([
    startServer(serving),
    startServer([...serving, "--tls-client-ca", certs.file("ca.pem")]),
  ]);
});

after(async () => {
  for (const c of clients) c.close();
  await Promise.all([tls?.stop(), mutual?.stop()]);
  certs?.cleanup();
});

test("TLS with the CA as a file path: the Zagreb example", async () => {
  const duetime = client({ address: tls.address, tls: { ca: certs.file("ca.pem") } });
  const answer = await duetime.computeDueTime("2026-11-27T16:00+01:00", "3bd", {
    timeZone: "Europe/Zagreb",
    holidays: ["2026-12-25", "2026-12-26"],
  });
  assert.equal(answer.dueLocal, "2026-12-02T16:00:00+01:00");
});

test("TLS with the CA as PEM text, by the name localhost", async () => {
  const duetime = client({
    address: `localhost:${tls.port}`,
    tls: { ca: readFileSync(certs.file("ca.pem"), "utf8") },
  });
  const count = await duetime.countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb");
  assert.equal(count.businessDays, 22);
});

test("a plain-text client to a TLS port fails UNAVAILABLE at once, not retried, not retryable", async () => {
  const started = Date.now();
  const error = await failure(() =>
    client({ address: tls.address, retries: 4, timeoutMs: 30_000 }).countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"),
  );
  assert.ok(error instanceof Unavailable, `${error.name}: ${error.message}`);
  assert.equal(error.retryable, false);
  assert.equal(error.reason, "NOT_A_GRPC_SERVER");
  assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
});

test("a server certificate from a CA not trusted fails UNAVAILABLE at once, not retried, not retryable", async () => {
  const started = Date.now();
  const error = await failure(() =>
    client({ address: tls.address, retries: 4, timeoutMs: 30_000, tls: { ca: certs.file("stranger.pem") } })
      .countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"),
  );
  assert.ok(error instanceof Unavailable, `${error.name}: ${error.message}`);
  assert.equal(error.retryable, false);
  assert.equal(error.reason, "TLS_CONFIGURATION");
  assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
});

test("a server certificate for another host name fails UNAVAILABLE at once, not retryable", async () => {
  const started = Date.now();
  const error = await failure(() =>
    client({ address: tls.address, retries: 4, timeoutMs: 30_000, tls: { ca: certs.file("ca.pem"), serverName: "elsewhere.test" } })
      .countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"),
  );
  assert.ok(error instanceof Unavailable, `${error.name}: ${error.message}`);
  assert.equal(error.retryable, false);
  assert.equal(error.reason, "TLS_CONFIGURATION");
  assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
});

test("mutual TLS: the client's certificate and key as bytes", async () => {
  const duetime = client({
    address: mutual.address,
    tls: { ca: certs.file("ca.pem"), cert: readFileSync(certs.file("client.pem")), key: readFileSync(certs.file("client.key")) },
  });
  const status = await duetime.getOpenStatus("2026-12-25T12:00+01:00", "hr-zagreb");
  assert.equal(status.open, false);
  assert.equal(status.holidayName, "Christmas Day");
});

test("mutual TLS without a client certificate, or with one of another CA, fails", async () => {
  const without = await failure(() =>
    client({ address: mutual.address, tls: { ca: certs.file("ca.pem") } }).countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"),
  );
  assert.ok(without instanceof Unavailable, `${without.name}: ${without.message}`);
  const stranger = await failure(() =>
    client({
      address: mutual.address,
      tls: { ca: certs.file("ca.pem"), cert: certs.file("stranger.pem"), key: certs.file("stranger.key") },
    }).countBusinessDays("2026-12-01", "2026-12-31", "hr-zagreb"),
  );
  assert.ok(stranger instanceof Unavailable, `${stranger.name}: ${stranger.message}`);
});

test("half a client certificate is refused before connecting", () => {
  assert.throws(
    () => new DuetimeClient({ address: mutual.address, tls: { ca: certs.file("ca.pem"), cert: certs.file("client.pem") } }),
    (error: unknown) => error instanceof DuetimeError && error.field === "tls.key",
  );
});
