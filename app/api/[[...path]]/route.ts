import { apiApp } from "@/lib/api/app";
import { startBackgroundWorkers } from "@/lib/background-workers";

// The Next door to the API: the same Hono app that `npm start`'s server serves directly.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

// Started at the first request, not at import: `next build` loads this module too.
const handle = (request: Request) => {
  startBackgroundWorkers();
  return apiApp().fetch(request);
};

export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
