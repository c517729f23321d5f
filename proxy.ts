import { NextResponse, type NextRequest } from "next/server";

/**
 * Tells the protected pages which address was asked for, so a visitor who is not signed in comes
 * back to it after sign-in (`/signin?callbackUrl=...`, see lib/auth/current-user.ts). Nothing else:
 * protection itself lives in the pages' layouts. Only page paths are matched: `/api/` uploads never
 * pass through here (Proxy buffers request bodies).
 */
export const PATH_HEADER = "x-arca-path";

export function proxy(request: NextRequest) {
  const headers = new Headers(request.headers);
  headers.set(PATH_HEADER, request.nextUrl.pathname + request.nextUrl.search);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  matcher: ["/projects", "/projects/:path*"],
};
