import { apiApp } from "@/lib/api/app";

// The Next door to the API: the same Hono app that `npm start`'s server serves directly.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const handle = (request: Request) => apiApp().fetch(request);

export { handle as GET, handle as HEAD, handle as POST, handle as PUT, handle as PATCH, handle as DELETE, handle as OPTIONS };
