/**
 * The dashboard page's script (plain browser JavaScript, served inline by ./page.ts): reads the
 * control routes of its own origin every second (usage for the chosen window and key, keys, the
 * request log after the last entry seen, faults, snapshots) and redraws the numbers, the uPlot
 * chart of requests and credits over time, the tables and the live log. With the controls' token
 * in its URL's fragment (`#token=`), it sends it with each read.
 */
export const DASHBOARD_SCRIPT = String.raw`
const base = location.pathname.replace(/\/$/, '')
const $ = (id) => document.getElementById(id)
const fmt = (n) => Number(n).toLocaleString('en-US')
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c])
let since = 0
let chart = null
let updates = 0
const log = []

// A double whose controls need a token (bound to an address that is not loopback) is opened as
// /_double/#token=<token>: the fragment never reaches the server or its log.
const token = new URLSearchParams(location.hash.slice(1)).get('token')
const headers = token ? { accept: 'application/json', authorization: 'Bearer ' + token } : { accept: 'application/json' }

async function get(path) {
  const res = await fetch(base + path, { headers })
  if (!res.ok) throw new Error(path + ': ' + res.status)
  return res.json()
}

function table(el, head, rows) {
  el.innerHTML = '<tr>' + head.map((h) => '<th>' + esc(h) + '</th>').join('') + '</tr>' +
    (rows.length ? rows.map((r) => '<tr>' + r.map((c) => '<td>' + c + '</td>').join('') + '</tr>').join('') : '<tr><td colspan="' + head.length + '" class="none">none</td></tr>')
}

function drawChart(series) {
  const xs = series.map((p) => Date.parse(p.time) / 1000)
  const data = [xs, series.map((p) => p.requests), series.map((p) => p.credits)]
  const width = Math.max(320, $('chart').clientWidth || 800)
  if (!chart) {
    chart = new uPlot({
      width, height: 220,
      series: [{}, { label: 'requests', stroke: '#2563eb', width: 2, scale: 'r' }, { label: 'credits', stroke: '#dc2626', width: 2, scale: 'c' }],
      axes: [{}, { scale: 'r', label: 'requests' }, { scale: 'c', side: 1, label: 'credits', grid: { show: false } }],
    }, data, $('chart'))
  } else chart.setData(data)
}

async function refresh() {
  const window_ = $('window').value
  const key = $('key').value
  const q = '?window=' + window_ + (key ? '&key=' + encodeURIComponent(key) : '')
  const [usage, keys, entries, faults, snapshots] = await Promise.all([
    get('/usage' + q), get('/keys'), get('/log?since=' + since), get('/faults'), get('/snapshots'),
  ])
  const known = new Set([...$('key').options].map((o) => o.value))
  for (const k of keys.keys) if (!known.has(k.key)) $('key').add(new Option(k.key, k.key))
  $('requests').textContent = fmt(usage.totals.requests)
  $('credits').textContent = fmt(usage.totals.credits)
  $('failures').textContent = fmt(usage.totals.failures)
  $('resets').textContent = usage.resetsAt
  table($('quotas'), ['key', 'networks', 'account', 'credits today', 'quota', 'used'], usage.quotas.map((k) => [
    esc(k.key), esc(k.networks.join(', ')), esc(k.account ?? '-'), fmt(k.accountSpentToday), fmt(k.dailyCredits),
    '<div class="bar"><div style="width:' + Math.min(100, k.percent) + '%"></div></div> ' + k.percent + '%',
  ]))
  table($('methods'), ['method', 'requests', 'ok', 'failed', 'credits'], usage.topMethods.slice(0, 10).map((m) => [esc(m.method), fmt(m.requests), fmt(m.successes), fmt(m.failures), fmt(m.credits)]))
  table($('statuses'), ['status', 'failures'], Object.entries(usage.failuresByStatus).map(([s, n]) => [esc(s), fmt(n)]))
  table($('contracts'), ['network', 'contract', 'eth_calls'], usage.contracts.map((c) => [esc(c.network), esc(c.address), fmt(c.calls)]))
  table($('faults'), ['id', 'kind', 'network', 'methods', 'fired', 'left'], faults.faults.map((f) => [esc(f.id), esc(f.kind), esc(f.network ?? 'any'), esc(f.methods ? f.methods.join(', ') : 'any'), fmt(f.fired), esc(f.remaining ?? '\u221e')]))
  table($('snapshots'), ['id', 'networks', 'time'], snapshots.snapshots.map((s) => [esc(s.id), esc(s.networks.join(', ')), esc(s.time)]))
  for (const e of entries.entries) { log.unshift(e); since = e.seq }
  log.length = Math.min(log.length, 50)
  table($('log'), ['seq', 'time', 'key', 'network', 'calls', 'status', 'credits'], log.map((e) => [
    e.seq, esc(e.time.slice(11, 23)), esc((e.key ?? '-').slice(0, 12)), esc(e.network ?? '-'),
    esc(e.calls.map((c) => c.method ?? '(invalid)').join(', ').slice(0, 80) || (e.socket ? e.socket.stage : '-')),
    esc(e.status ?? 'dropped') + (e.fault ? ' <span class="fault">' + esc(e.fault) + '</span>' : ''), fmt(e.credits),
  ]))
  drawChart(usage.series)
  document.body.dataset.updates = String(++updates)
  $('error').textContent = ''
}

async function loop() {
  try { await refresh() } catch (err) { $('error').textContent = String(err.message ?? err) }
  setTimeout(loop, 1000)
}
$('window').onchange = () => refresh()
$('key').onchange = () => refresh()
loop()
`
