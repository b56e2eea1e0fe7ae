/** The workflow bundle's entry: every workflow function the twin worker runs (their exported names are their workflow types). */
export { deviceTwin } from './twin/device-twin';
export { deliverNotification } from './notification-delivery';
export { runJob } from './job/run-job';
