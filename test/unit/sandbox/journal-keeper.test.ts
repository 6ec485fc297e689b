// The runner's journal keeper alone: recording within the bound, answering a replay from
// the journal, the first divergence named by step, and a live-after replay going live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JournalKeeper, requestDigest } from '../../../sandbox/journal/keeper';
import type { JournalEntry } from '../../../sandbox/journal/entries';

test('recording streams entries in order (each once) until the bound, then says truncated once and keeps nothing', () => {
  const keeper = new JournalKeeper(1000, null, () => {});
  assert.equal(keeper.clock(() => 42), 42);
  assert.equal(keeper.random(3, () => 'AAAA'), 'AAAA');
  assert.deepEqual(keeper.drain(), { entries: [{ kind: 'clock', value: 42 }, { kind: 'random', bytes: 'AAAA' }] });
  assert.equal(keeper.drain(), undefined, 'nothing is sent twice');
  keeper.clock(() => 43);
  assert.deepEqual(keeper.drain(), { entries: [{ kind: 'clock', value: 43 }] });
  keeper.random(900, () => 'B'.repeat(1200));
  assert.deepEqual(keeper.drain(), { entries: [], truncated: true });
  assert.equal(keeper.drain(), undefined);
  assert.equal(keeper.recording, false);
});

test('a replay answers clocks, randomness and calls from the journal and names the first divergence', () => {
  const digest = requestDigest('svc:fs.read', '["a.txt"]');
  const entries: JournalEntry[] = [
    { kind: 'clock', value: 7 },
    { kind: 'host_call', call: 0, capability: 'svc:fs.read', request_digest: digest, sync: true, answer: 'text', fuel: 1 },
    { kind: 'random', bytes: Buffer.from([1, 2]).toString('base64') },
  ];
  const keeper = new JournalKeeper(0, { entries, live: false }, () => assert.fail('a replay without live never goes live'));
  assert.equal(keeper.clock(() => assert.fail('no clock is read')), 7);
  assert.equal(keeper.syncAnswer(keeper.nextCall(), 'svc:fs.read', digest)?.answer, 'text');
  assert.equal(keeper.random(4, () => assert.fail('no bytes are drawn')), null, 'four bytes where the journal holds two');
  assert.equal(keeper.divergence?.step, 2);
  assert.equal(keeper.divergence?.message, 'replay diverged at step 2: the journal holds 2 random bytes, the program asked for 4 random bytes');
});

test('an asynchronous call is checked when it starts; a live-after replay goes live once its entries are used', () => {
  const digest = requestDigest('web.fetch', '[1]');
  let live = 0;
  const entries: JournalEntry[] = [{ kind: 'host_call', call: 0, capability: 'web.fetch', request_digest: digest, answer: 1, fuel: 0 }];
  const keeper = new JournalKeeper(1 << 20, { entries, live: true }, () => live++);
  assert.equal(keeper.startInReplay(keeper.nextCall(), 'web.fetch', digest), 'answered');
  assert.equal(keeper.startInReplay(keeper.nextCall(), 'web.fetch', digest), 'unsent', 'a call the journal does not answer waits to be sent live');
  assert.equal(keeper.replaying, true);
  assert.deepEqual(keeper.nextTurn(), entries[0]);
  assert.equal(keeper.replaying, false);
  assert.equal(live, 1);
  assert.equal(keeper.clock(() => 99), 99, 'live now: the clock is read and recorded');
  assert.deepEqual(keeper.drain(), { entries: [{ kind: 'clock', value: 99 }], replayed: 1 }, 'the replayed entry travels as a count, the live one whole');

  const other = new JournalKeeper(0, { entries, live: false }, () => {});
  assert.equal(other.startInReplay(other.nextCall(), 'web.fetch', requestDigest('web.fetch', '[2]')), 'diverged');
  assert.match(other.divergence!.message, /^replay diverged at step 0: the journal holds host_call #0 web\.fetch sha256:[0-9a-f]{64}, the program asked for host_call #0 web\.fetch sha256:[0-9a-f]{64}$/);
});

test("a secret the run was given is masked out of later requests' digests, the same way when recorded and when replayed", () => {
  const request = JSON.stringify(['https://api.example.com/v1', { headers: { authorization: 'Bearer hunter"2' } }]);
  const recording = new JournalKeeper(100_000, null, () => {});
  assert.equal(recording.digestOf('svc:http.get', request), requestDigest('svc:http.get', request), 'before any secret nothing is masked');
  recording.noteWithheld(JSON.stringify({ ok: true, value: 'hunter"2', fuel: 1 }));
  const masked = recording.digestOf('svc:http.get', request);
  // The tape's digest is not the one a guess of the secret would reproduce from the request.
  assert.notEqual(masked, requestDigest('svc:http.get', request));
  assert.notEqual(masked, requestDigest('svc:http.get', request.replace('hunter\\"2', 'guess')));
  // A replay given the same secret computes the same digest; a different request still differs.
  const replaying = new JournalKeeper(0, { entries: [], live: false }, () => {});
  replaying.noteWithheld(JSON.stringify({ ok: true, value: 'hunter"2', fuel: 0 }));
  assert.equal(replaying.digestOf('svc:http.get', request), masked);
  assert.notEqual(replaying.digestOf('svc:http.get', request.replace('v1', 'v2')), masked);
});

test('a secret re-encoded by a Package is masked too: base64 inside Basic auth (any offset, URL-safe too) and percent-encoding', () => {
  const secret = 'p@ss wörd/+?';
  const keeper = new JournalKeeper(100_000, null, () => {});
  keeper.noteWithheld(JSON.stringify({ ok: true, value: secret, fuel: 1 }));
  const guess = 'q@ss wörd/+?';
  const forms = [
    (value: string) => `Basic ${Buffer.from(`alice:${value}`).toString('base64')}`,
    (value: string) => `Basic ${Buffer.from(`bo:${value}`).toString('base64')}`,
    (value: string) => `Basic ${Buffer.from(`bob:${value}`).toString('base64url')}`,
    (value: string) => `https://api.example.com/?key=${encodeURIComponent(value)}`,
    (value: string) => new URLSearchParams({ key: value }).toString(),
  ];
  for (const form of forms) {
    const request = (value: string) => JSON.stringify(['https://api.example.com/v1', { headers: { authorization: form(value) } }]);
    assert.notEqual(keeper.digestOf('svc:http.get', request(secret)), requestDigest('svc:http.get', request(secret)), form(secret));
    // No oracle: the masked digest does not depend on the secret (a run given a guess of the same length, sending it the same way, gets the same digest).
    const guessing = new JournalKeeper(100_000, null, () => {});
    guessing.noteWithheld(JSON.stringify({ ok: true, value: guess, fuel: 1 }));
    assert.equal(guessing.digestOf('svc:http.get', request(guess)), keeper.digestOf('svc:http.get', request(secret)), form(secret));
    const replaying = new JournalKeeper(0, { entries: [], live: false }, () => {});
    replaying.noteWithheld(JSON.stringify({ ok: true, value: secret, fuel: 0 }));
    assert.equal(replaying.digestOf('svc:http.get', request(secret)), keeper.digestOf('svc:http.get', request(secret)), 'recording and replay mask alike');
  }
});
