/**
 * The report's one stylesheet, inline (the page loads nothing): system fonts, light and dark
 * colours from `prefers-color-scheme`, verdict colours that keep their meaning in both, and a
 * print view that opens every collapsed proposal.
 */
export const REPORT_CSS = `
:root{color-scheme:light dark;--bg:#fdfdfc;--fg:#1d2126;--muted:#5b6470;--line:#d9dde3;--panel:#f3f5f7;--link:#0b5cad;
--verified:#1a7f37;--contested:#9a6700;--unverified:#57606a;--wrong:#cf222e;--unknown:#6e7781;--inject:#8250df;
--c0:#0969da;--c1:#d1242f;--c2:#1a7f37;--c3:#9a6700;--c4:#8250df;--c5:#bf3989;--c6:#0a7d8c;--c7:#6e5a2b}
@media (prefers-color-scheme:dark){:root{--bg:#0f1216;--fg:#e3e7ec;--muted:#9aa4b1;--line:#2f3640;--panel:#181d23;--link:#6cb6ff;
--verified:#3fb950;--contested:#d29922;--unverified:#8b949e;--wrong:#f85149;--unknown:#8b949e;--inject:#bc8cff;
--c0:#58a6ff;--c1:#ff7b72;--c2:#3fb950;--c3:#d29922;--c4:#bc8cff;--c5:#f778ba;--c6:#39c5cf;--c7:#c9a86b}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main,header.page{max-width:1040px;margin:0 auto;padding:0 20px}
header.page{padding-top:20px}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;margin:1.4em 0 .5em;border-bottom:1px solid var(--line);padding-bottom:.2em}
h3{font-size:1.08em;margin:1.1em 0 .4em}
a{color:var(--link)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.9em}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:.4em 0}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.meta{display:flex;flex-wrap:wrap;gap:4px 18px;color:var(--muted);margin:.3em 0;padding:0;list-style:none}
.meta b{color:var(--fg);font-weight:600}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:.5em 0}
.facts dt{color:var(--muted)}.facts dd{margin:0}
blockquote{margin:.4em 0;padding:.2em 12px;border-left:4px solid var(--line);color:var(--fg)}
.answer{border:1px solid var(--line);border-radius:8px;padding:4px 16px;background:var(--panel)}
.answer pre{background:var(--bg)}
.badge{display:inline-block;padding:0 7px;border-radius:10px;font-size:.8em;font-weight:600;border:1px solid currentColor;white-space:nowrap;vertical-align:baseline}
table.ballots td.cell{text-align:center;border:1px solid var(--line)}
table.ballots td.s-strong_agree{background:color-mix(in srgb,var(--verified) 35%,transparent)}
table.ballots td.s-agree{background:color-mix(in srgb,var(--verified) 18%,transparent)}
table.ballots td.s-neutral{background:color-mix(in srgb,var(--unverified) 14%,transparent)}
table.ballots td.s-disagree{background:color-mix(in srgb,var(--wrong) 18%,transparent)}
table.ballots td.s-strong_disagree{background:color-mix(in srgb,var(--wrong) 35%,transparent)}
table.ballots td.synthetic{background-image:repeating-linear-gradient(45deg,transparent 0 5px,var(--line) 5px 7px);font-style:italic}
table.ballots th.chosen{text-decoration:underline}
.v-verified{color:var(--verified)}.v-contested{color:var(--contested)}.v-unverified{color:var(--unverified)}.v-wrong{color:var(--wrong)}.v-unknown{color:var(--unknown)}
.st-pass{color:var(--verified)}.st-fail,.st-failed,.st-cancelled{color:var(--wrong)}.st-inconclusive,.st-interrupted{color:var(--contested)}
.counts{display:flex;flex-wrap:wrap;gap:6px;margin:0;padding:0;list-style:none}
table{border-collapse:collapse;width:100%;margin:.4em 0}
th,td{text-align:left;vertical-align:top;padding:5px 8px;border-bottom:1px solid var(--line)}
th{font-weight:600;color:var(--muted);font-size:.88em}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
meter{width:70px;height:.7em;vertical-align:middle}
.charts{display:grid;grid-template-columns:1fr;gap:8px 20px}
@media (min-width:900px){.charts{grid-template-columns:1fr 1fr}}
figure{margin:.4em 0}figcaption{color:var(--muted);font-size:.9em}
svg.chart{width:100%;height:auto;max-height:260px;background:var(--panel);border:1px solid var(--line);border-radius:6px}
svg .grid{stroke:var(--line);stroke-width:1}
svg .tick{fill:var(--muted);font-size:14px;font-family:system-ui,sans-serif}
svg .series{fill:none;stroke-width:1.6;stroke-linejoin:round;stroke-linecap:round;opacity:.85}
svg .series.chosen{stroke-width:3.4;opacity:1}
svg .series.dashed{stroke-dasharray:5 3}
svg .dot{stroke:none}
.s0{stroke:var(--c0);fill:var(--c0)}.s1{stroke:var(--c1);fill:var(--c1)}.s2{stroke:var(--c2);fill:var(--c2)}.s3{stroke:var(--c3);fill:var(--c3)}
.s4{stroke:var(--c4);fill:var(--c4)}.s5{stroke:var(--c5);fill:var(--c5)}.s6{stroke:var(--c6);fill:var(--c6)}.s7{stroke:var(--c7);fill:var(--c7)}
svg polyline.series{fill:none}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:.3em 0 0;padding:0;list-style:none;font-size:.9em}
.sw{display:inline-block;width:18px;height:4px;border-radius:2px;vertical-align:middle;margin-right:6px;background:var(--muted)}
.sw.s0{background:var(--c0)}.sw.s1{background:var(--c1)}.sw.s2{background:var(--c2)}.sw.s3{background:var(--c3)}
.sw.s4{background:var(--c4)}.sw.s5{background:var(--c5)}.sw.s6{background:var(--c6)}.sw.s7{background:var(--c7)}
.sw.chosen{height:7px}
details{margin:.3em 0}
summary{cursor:pointer;padding:2px 0}
summary:focus-visible,a:focus-visible{outline:2px solid var(--link);outline-offset:2px;border-radius:3px}
details.round{border:1px solid var(--line);border-radius:6px;padding:4px 12px;margin:.5em 0}
details.round>summary{font-weight:600}
details.round>summary .sub{font-weight:400;color:var(--muted)}
details.proposal>summary,details.more>summary{color:var(--link);font-size:.9em}
ul.claims{margin:.2em 0;padding-left:0;list-style:none}
ul.claims li{margin:.15em 0}
.reason{color:var(--muted)}
.injection{border-left:4px solid var(--inject);padding:2px 10px;margin:.4em 0;background:var(--panel)}
.injection .badge{color:var(--inject)}
article.turn{border-top:1px solid var(--line);padding:.4em 0 .8em}
article.turn>h3{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:baseline}
article.turn>h3 .meta{margin:0;font-weight:400;font-size:.9em}
.error{color:var(--wrong)}
.v-inject{color:var(--inject)}.muted{color:var(--muted)}
.chosen-mark{color:var(--verified);font-weight:700}
footer{color:var(--muted);font-size:.85em;margin:2em auto;max-width:1040px;padding:0 20px}
@media print{
body{font-size:11pt;background:#fff;color:#000}
details::details-content{content-visibility:visible;display:block}
details>summary{list-style:none}
details.round{break-inside:auto}
svg.chart{break-inside:avoid}
a{color:inherit}
}
`;
