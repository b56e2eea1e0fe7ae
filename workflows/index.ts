/** The workflow bundle's entry: every workflow function the twin worker runs. */
export { deviceTwin } from './device-twin';
export { deliverNotification } from './notification-delivery';
