// Worker-thread entry of the host tasks (./host-tasks.ts). Built as dist/host-worker.js.
import { serveTasks } from '../offload';
import { hostTaskHandlers } from './host-task-handlers';
import { reportThreadHeap } from '../../sandbox/thread-heap';

reportThreadHeap('host');

serveTasks(hostTaskHandlers);
