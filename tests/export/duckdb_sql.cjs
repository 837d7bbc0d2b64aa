// duckdb_sql.cjs -- run SQL in DuckDB through its npm package, for the
// tests and the bench (tests/export/check_sql.py, bench/bench.py).
//
//   node duckdb_sql.cjs MODULE_DIR DATABASE SQL_FILE
//
// MODULE_DIR holds node_modules/@duckdb/node-api (scripts/install-deps.sh
// installs it); DATABASE is a file (created if absent) or :memory:. Every
// statement of SQL_FILE runs in order; the rows of the last one are
// printed, one line each, values separated by tabs. Errors: a message on
// stderr and exit status 1.
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const [dir, db, file] = process.argv.slice(2);
  const { DuckDBInstance } =
      require(path.join(dir, 'node_modules', '@duckdb', 'node-api'));
  const instance = await DuckDBInstance.create(db);
  const conn = await instance.connect();
  const result = await conn.runAndReadAll(fs.readFileSync(file, 'utf8'));
  const out = result.getRowsJson().map((row) => row.join('\t'));
  process.stdout.write(out.length ? out.join('\n') + '\n' : '');
}

main().catch((e) => {
  process.stderr.write('duckdb: ' + e.message + '\n');
  process.exit(1);
});
