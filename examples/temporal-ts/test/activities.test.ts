/**
 * The activities' conversions, without a server: idempotency keys, instants
 * and durations as the workflow keeps them, and which duetime errors become
 * non-retryable failures.
 */

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';

import { errorOfCode, invalidArgument, Unavailable } from '@duetime/client';
import { ApplicationFailure } from '@temporalio/common';

import { asActivityFailure, durationText, idempotencyKey, MAX_KEY, rfc3339 } from '../src/activities.js';

test('a key up to 200 characters is sent as it is; a longer one as its SHA-256', () => {
  const key = `ticket-42/${'0'.repeat(36)}/7`;
  assert.equal(idempotencyKey(key), key);
  assert.equal(idempotencyKey('k'.repeat(MAX_KEY)), 'k'.repeat(MAX_KEY));
  const long = idempotencyKey('k'.repeat(MAX_KEY + 1));
  assert.equal(long, `sha256:${createHash('sha256').update('k'.repeat(MAX_KEY + 1)).digest('hex')}`);
  assert.match(long, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(idempotencyKey('k'.repeat(MAX_KEY + 2)), long);
});

test('instants are RFC 3339 in UTC to the microsecond; durations as duetime writes them', () => {
  const seconds = BigInt(Date.parse('2026-12-01T09:00:00Z') / 1000);
  assert.equal(rfc3339({ seconds, nanos: 0 }), '2026-12-01T09:00:00Z');
  assert.equal(rfc3339({ seconds, nanos: 500_000_000 }), '2026-12-01T09:00:00.500Z');
  assert.equal(rfc3339({ seconds, nanos: 123_456_789 }), '2026-12-01T09:00:00.123456Z');
  assert.equal(rfc3339(undefined), '');
  assert.equal(durationText({ seconds: 5n, nanos: 0 }), '5s');
  assert.equal(durationText({ seconds: 19n, nanos: 250_000_000 }), '19.25s');
  assert.equal(durationText({ seconds: -1n, nanos: -500_000_000 }), '-1.5s');
  assert.equal(durationText({ seconds: 0n, nanos: 1000 }), '0.000001s');
});

test('errors no retry can fix become non-retryable failures named by class; the others stay', () => {
  const refused = asActivityFailure(invalidArgument('events[1].attributes', "tier 'platinum' is not a tier"));
  assert.ok(refused instanceof ApplicationFailure);
  assert.deepEqual([refused.type, refused.nonRetryable, refused.details],
    ['InvalidArgument', true, [{ field: 'events[1].attributes', description: "tier 'platinum' is not a tier" }]]);
  const down = errorOfCode({ code: 14 as Parameters<typeof errorOfCode>[0]['code'], details: 'connection refused' });
  assert.ok(down instanceof Unavailable && down.retryable);
  assert.equal(asActivityFailure(down), down); // Temporal retries it
  const other = new Error('not from duetime');
  assert.equal(asActivityFailure(other), other);
});
