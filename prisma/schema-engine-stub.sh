#!/bin/sh
# Prisma's native schema engine cannot be downloaded on these machines (no network to its CDN).
# `generate` only needs a file at PRISMA_SCHEMA_ENGINE_BINARY; migrations are applied by
# lib/db/migrate.ts from the SQL files in prisma/migrations instead.
echo "The Prisma schema engine is not installed; Arca applies prisma/migrations itself (lib/db/migrate.ts)." >&2
exit 1
