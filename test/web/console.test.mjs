// Browser tests of the web console: Debian's chromium driven by playwright-core against a running
// `silt serve` on a demo warehouse (test/web/run.sh starts it).
//   node console.test.mjs URL SILT_BINARY WAREHOUSE SCREENSHOT_DIR
// Prints one line per check and "N passed, N failed" last.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';

const [url, silt, warehouse, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
let passed = 0;
let failed = 0;

function sqlJson(statement) {
  const out = execFileSync(silt, ['sql', '--warehouse', warehouse, '--mode', 'json', '-e', statement], { encoding: 'utf8' });
  return out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}
function assert(cond, message) { if (!cond) throw new Error(message); }

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));
page.setDefaultTimeout(20000);

async function check(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    passed++;
    console.log(`PASS ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
  await page.screenshot({ path: `${shots}/${name.replace(/[^a-z0-9]+/gi, '_')}.png`, fullPage: true }).catch(() => {});
}

// Waits for the job in the open dialog to end; its final state.
async function jobEnd(nth = 0) {
  const state = page.getByTestId('job-state').nth(nth);
  await state.waitFor();
  await page.waitForFunction((n) => {
    const el = document.querySelectorAll('[data-testid=job-state]')[n];
    return el && el.dataset.state;
  }, nth, { timeout: 60000 });
  return state.getAttribute('data-state');
}

async function openTable() {
  await page.goto(url + '#/table/default.events');
  await page.reload();  // a fresh page: the same URL with a hash does not load again
  await page.getByTestId('fig-num_files').waitFor();
}

async function historyTop() {
  return (await page.getByTestId('history-operation').first().textContent()).trim();
}

await check('console loads and shows the warehouse tree', async () => {
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]');
  await page.getByTestId('tree-default.events').waitFor();
  assert(consoleErrors.length === 0, 'page errors: ' + consoleErrors.join('; '));
});

await check('table figures equal DESCRIBE DETAIL', async () => {
  await page.getByTestId('tree-default.events').click();
  await page.getByTestId('fig-num_files').waitFor();
  const [detail] = sqlJson('DESCRIBE DETAIL events');
  const files = Number(await page.getByTestId('fig-num_files').textContent());
  const size = Number(await page.getByTestId('fig-size_in_bytes').textContent());
  assert(files === detail.numFiles, `files ${files} != numFiles ${detail.numFiles}`);
  assert(size === detail.sizeInBytes, `size ${size} != sizeInBytes ${detail.sizeInBytes}`);
  assert(Number(await page.getByTestId('fig-version').textContent()) === sqlJson('DESCRIBE HISTORY events LIMIT 1')[0].version, 'version');
  await page.getByTestId('charts').waitFor();
  assert(await page.getByTestId('history-row').count() >= 3, 'history rows');
  assert(await page.getByTestId('advisor').locator('tbody tr').count() === 6, 'six advisor rows');
  const dv = await page.getByTestId('fig-dv').textContent();
  const stats = Object.fromEntries(detail.statistics);
  assert(dv.startsWith(String(stats.numRowsDeletedByDeletionVectors) + ' '), `DV rows ${dv} vs ${JSON.stringify(detail.statistics)}`);
});

await check('VACUUM DRY RUN then VACUUM from the page, history updates', async () => {
  await openTable();
  await page.getByTestId('btn-vacuum').click();
  assert(await jobEnd(0) === 'succeeded', 'dry run failed');
  assert((await page.getByTestId('dialog-statement').textContent()).includes('DRY RUN'), 'statement');
  await page.getByTestId('dialog-confirm').click();
  assert(await jobEnd(1) === 'succeeded', 'vacuum failed');
  await page.getByTestId('dialog-close').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=history-operation]')?.textContent.startsWith('VACUUM'));
  const top = await historyTop();
  assert(top.startsWith('VACUUM'), 'history top is ' + top);
  const [last] = sqlJson('DESCRIBE HISTORY events LIMIT 1');
  assert(last.operation === top, `history ${top} != ${last.operation}`);
});

await check('OPTIMIZE from the page compacts and history updates', async () => {
  await openTable();
  const before = Number(await page.getByTestId('fig-num_files').textContent());
  await page.getByTestId('btn-optimize').click();
  await page.getByTestId('preview').waitFor();
  await page.getByTestId('dialog-confirm').click();
  assert(await jobEnd(0) === 'succeeded', 'optimize failed');
  await page.getByTestId('dialog-close').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=history-operation]')?.textContent === 'OPTIMIZE');
  const after = Number(await page.getByTestId('fig-num_files').textContent());
  assert(after < before, `files ${before} -> ${after}`);
  const [detail] = sqlJson('DESCRIBE DETAIL events');
  assert(after === detail.numFiles, `files ${after} != numFiles ${detail.numFiles}`);
});

await check('a failing action shows its error class', async () => {
  await openTable();
  await page.getByTestId('retain-hours').fill('0');
  await page.getByTestId('btn-vacuum').click();
  assert(await jobEnd(0) === 'failed', 'expected the job to fail');
  const cls = (await page.getByTestId('error-class').first().textContent()).trim();
  assert(cls === 'DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT', 'error class ' + cls);
  assert(await page.getByTestId('dialog-confirm').isHidden(), 'no confirm after a failed preview');
  // The dialog stays open for the screenshot; the next check loads another page.
});

await check('a maintenance pass from the page fills the operations history', async () => {
  await openTable();
  await page.getByTestId('btn-maintain').click();
  assert(await jobEnd(0) === 'succeeded', 'dry run failed');
  const due = await page.getByTestId('job-result').first().locator('tbody tr').count();
  assert(due === 6, 'the preview lists the six jobs, got ' + due);
  await page.getByTestId('dialog-confirm').click();
  assert(await jobEnd(1) === 'succeeded', 'the pass failed');
  await page.getByTestId('dialog-close').click();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=ops-history] td')].some((td) => td.textContent === 'CHECKPOINT'));
  const checkpointRow = page.getByTestId('advisor').locator('tbody tr').filter({ hasText: 'CHECKPOINT' });
  assert((await checkpointRow.locator('td').nth(1).textContent()) === 'false', 'the advisor still says CHECKPOINT is due');
  await page.getByTestId('ops-operation').selectOption('VACUUM');
  await page.getByTestId('ops-apply').click();
  await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid=ops-history] td')].some((td) => td.textContent === 'CHECKPOINT'));
  const rows = sqlJson("SELECT operation_type FROM system.storage.maintenance_operations_history WHERE operation_type = 'CHECKPOINT'");
  assert(rows.length === 1, 'one CHECKPOINT row in the history table');
});

await check('SQL box shows a grid and the CLI error', async () => {
  await page.goto(url + '#/sql');
  await page.getByTestId('sql-input').fill('SELECT count(*) AS n FROM events');
  await page.getByTestId('sql-run').click();
  await page.getByTestId('sql-grid').waitFor();
  const n = (await page.getByTestId('sql-grid').locator('tbody td').first().textContent()).trim();
  assert(n === String(sqlJson('SELECT count(*) AS n FROM events')[0].n), 'count ' + n);
  await page.getByTestId('sql-input').fill('SELECT * FROM no_such_table');
  await page.getByTestId('sql-run').click();
  const err = page.getByTestId('sql-output').getByTestId('error-class');
  await err.waitFor();
  assert((await err.textContent()) === 'TABLE_OR_VIEW_NOT_FOUND', 'error class');
  const cli = await page.getByTestId('sql-output').locator('pre.cli').textContent();
  assert(cli.startsWith('Error: [TABLE_OR_VIEW_NOT_FOUND] '), 'CLI text ' + cli);
});

await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
