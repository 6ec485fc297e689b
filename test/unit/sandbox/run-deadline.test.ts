// RunDeadline, the runner's time limit that stops while a host call waits for a person:
// with mocked timers (no real waiting), a 1 s limit paused for a day while the run awaits
// still leaves the time not yet used, pausing or resuming twice changes nothing, and a run
// that computes beside a paused call is counted.
import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { RunDeadline } from '../../../sandbox/runner/deadline';

/** A 1 s deadline on a mocked clock at 0, and how often it has expired. */
function onMockedClock(body: (deadline: RunDeadline, expired: () => number) => void): void {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  try {
    let expired = 0;
    const deadline = new RunDeadline(1000, Date.now(), () => expired++);
    body(deadline, () => expired);
    deadline.stop();
  } finally {
    mock.timers.reset();
  }
}

test('the limit counts only while not paused', () => {
  onMockedClock((deadline, expired) => {
    mock.timers.tick(400);
    deadline.pause();
    deadline.pause();
    deadline.computing(false);
    mock.timers.tick(86_400_000);
    assert.equal(expired(), 0, 'a day waiting for a person does not count');
    deadline.computing(true);
    deadline.resume();
    deadline.resume();
    mock.timers.tick(599);
    assert.equal(expired(), 0);
    mock.timers.tick(1);
    assert.equal(expired(), 1, 'the remaining 600 ms ran out');
  });
});

test('a run that computes while a call waits for a person is counted', () => {
  onMockedClock((deadline, expired) => {
    deadline.pause();
    mock.timers.tick(999);
    assert.equal(expired(), 0);
    mock.timers.tick(1);
    assert.equal(expired(), 1, 'computing beside the waiting call used the whole second');
  });
});

test('a stopped deadline never fires', () => {
  onMockedClock((deadline, expired) => {
    deadline.stop();
    mock.timers.tick(5000);
    assert.equal(expired(), 0);
  });
});
