import { exitOnStartFailure, runServer } from "./run-server";

/**
 * `npm run serve:api`: the API alone (no dashboard, no Next build), with the same database
 * start, start-up cleanup and shutdown as `npm start`. For API-only deployments and for tests
 * that run the server as a real process and kill it (lib/api/tests/crash.test.ts).
 */
runServer({ withDashboard: false }).catch(exitOnStartFailure);
