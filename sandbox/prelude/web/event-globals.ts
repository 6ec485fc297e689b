// The lazily evaluated event and performance globals (./lazy.ts `eventGroup`): importing this
// module evaluates the event classes (./event.ts) and `performance` (../performance.ts),
// which a hello-world run does not need, and hands their globals over. The platform's
// classes (AbortSignal, FileReader) extend these same classes, whichever is touched first.
import { CustomEvent, ErrorEvent, Event, EventTarget, globalEventFunctions } from './event';
import { makePerformance, Performance, PerformanceEntry, PerformanceMark, PerformanceMeasure, resetTimeOrigin } from '../performance';
import { provide } from '../lazy-group';
import { eventGroup } from './lazy';
import { sealed } from './sealed';

const globalEvents = globalEventFunctions();
provide(eventGroup, {
  globals: {
    Event: sealed(Event),
    EventTarget: sealed(EventTarget),
    CustomEvent: sealed(CustomEvent),
    ErrorEvent: sealed(ErrorEvent),
    addEventListener: globalEvents.addEventListener,
    removeEventListener: globalEvents.removeEventListener,
    dispatchEvent: globalEvents.dispatchEvent,
    reportError: globalEvents.reportError,
    performance: makePerformance(),
    Performance,
    PerformanceEntry,
    PerformanceMark,
    PerformanceMeasure,
  },
  resetTimeOrigin,
});
