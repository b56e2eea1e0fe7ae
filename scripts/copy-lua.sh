#!/usr/bin/env bash
# tsc copies no .lua files: put the Redis scripts next to the compiled loader (dist/store/lua),
# where store/lua/load.ts reads them at run time.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf dist/store/lua/lib dist/store/lua/*.lua
mkdir -p dist/store/lua/lib
cp store/lua/*.lua dist/store/lua/
cp store/lua/lib/*.lua dist/store/lua/lib/
# The same for PostgreSQL migrations: store/pg/migrate.ts reads them beside itself.
rm -rf dist/store/pg/migrations
mkdir -p dist/store/pg/migrations
cp store/pg/migrations/*.sql dist/store/pg/migrations/
