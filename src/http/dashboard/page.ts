/**
 * The dashboard page at `/_double/` (served with the control routes): keys and their networks,
 * today's credits against each quota, requests and credits over time (uPlot, from the package's
 * own dependencies: no CDN), top methods, failures by status, eth_call's contracts, the live
 * request log, active faults and snapshots. Its script (./script.ts) reads the control routes of
 * the same origin.
 */
import { DASHBOARD_SCRIPT } from './script.ts'

/** Where the page loads uPlot from, under the control prefix. */
export const UPLOT_JS = 'dashboard/uPlot.iife.min.js'
export const UPLOT_CSS = 'dashboard/uPlot.min.css'

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 24px; color: #111; background: #fafafa; }
header { display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
h1 { font-size: 20px; } h2 { font-size: 15px; margin: 18px 0 6px; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 140px; }
.card b { display: block; font-size: 22px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 0 24px; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; font-variant-numeric: tabular-nums; }
th { background: #f0f0f0; } td.none { color: #888; }
.bar { display: inline-block; width: 90px; height: 8px; background: #e5e7eb; vertical-align: middle; }
.bar div { height: 8px; background: #16a34a; }
.fault { color: #b45309; } #error { color: #b91c1c; }
#chart { background: #fff; border: 1px solid #ddd; }
`

export function dashboardPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gateway-double dashboard</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="${UPLOT_CSS}"><style>${STYLE}</style></head>
<body>
<header><h1>gateway-double</h1>
<label>window <select id="window"><option value="15m">15 min</option><option value="1h">1 h</option><option value="24h" selected>24 h</option><option value="7d">7 d</option><option value="30d">30 d</option><option value="today">today (UTC)</option></select></label>
<label>key <select id="key"><option value="">all keys</option></select></label>
<a href="routes">control routes</a> <span id="error"></span></header>
<div class="cards">
<div class="card">requests<b id="requests">-</b></div>
<div class="card">credits<b id="credits">-</b></div>
<div class="card">failures<b id="failures">-</b></div>
<div class="card">quotas reset<b id="resets" style="font-size:14px">-</b></div>
</div>
<h2>Keys: today's credits against the daily quota</h2><table id="quotas"></table>
<h2>Requests and credits over time</h2><div id="chart"></div>
<div class="grid">
<div><h2>Top methods</h2><table id="methods"></table></div>
<div><h2>Failures by status</h2><table id="statuses"></table>
<h2>Contracts eth_call reached (last 30 min)</h2><table id="contracts"></table></div>
<div><h2>Active faults</h2><table id="faults"></table></div>
<div><h2>Snapshots</h2><table id="snapshots"></table></div>
</div>
<h2>Live request log</h2><table id="log"></table>
<script src="${UPLOT_JS}"></script>
<script>${DASHBOARD_SCRIPT}</script>
</body></html>
`
}
