import { handlers } from "@/lib/auth/next-auth";

// next-auth's endpoints (CSRF, callback, session, sign-out), outside `/api/` on purpose.
export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const { GET, POST } = handlers;
