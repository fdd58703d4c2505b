# Reports from clf-bench's output, for run.sh.
# Usage: awk -f engine-report.awk engine.log engine.tsv
#          markdown for results.md: for every device and size, median kernel
#          ms and host-memory frames/s, rows = mode, columns = radius (laplace
#          is 3x3, its own column); then a summary of the check column
#        awk -v chart=WxH -f engine-report.awk engine.log engine.tsv
#          gnuplot data for kernel-vs-radius.gp: one block per blur mode and
#          device at size WxH, a title line then "radius ms" rows
# engine.log (clf-bench's stderr) names the devices ("device 0:0: NAME").
BEGIN { FS = "\t" }

FILENAME == ARGV[1] {
  sep = index($0, ": ")
  if ($0 ~ /^device / && sep) name[substr($0, 8, sep - 8)] = substr($0, sep + 2)
  next
}

FNR == 1 { next }

chart != "" {
  if ($4 == chart && $2 != "laplace" && $5 != "-") {
    device = ($1 in name) ? name[$1] : $1
    sub(/.* \/ /, "", device)           # the device, without its platform
    line = $2 ", " device
    if (!(line in rows)) lines[++n_lines] = line
    rows[line] = rows[line] $3 " " $5 "\n"
  }
  next
}

{
  key = $1 SUBSEP $4
  if (!(key in seen)) { seen[key] = 1; keys[++n_keys] = key }
  mode = $2
  if (!(mode in mode_seen)) { mode_seen[mode] = 1; modes[++n_modes] = mode }
  col = mode == "laplace" ? "3x3" : $3
  if (mode != "laplace" && !(col in col_seen)) { col_seen[col] = 1; cols[++n_cols] = col }
  if (mode == "laplace") has_laplace = 1
  ms[key, mode, col] = $9 == "skipped" ? "skipped" : $5
  fps[key, mode, col] = $9 == "skipped" ? "skipped" : $8
  verdicts[$9]++
  n_cases++
  if ($9 == "MISMATCH") mismatches = mismatches "\n- " $1 " " $2 " r=" $3 " " $4
}

function table(values, key, what,    i, j, line) {
  line = "| " what " |"
  for (j = 1; j <= n_cols; j++) line = line " r=" cols[j] " |"
  if (has_laplace) line = line " 3x3 |"
  print line
  line = "|---|"
  for (j = 1; j <= n_cols + has_laplace; j++) line = line "---:|"
  print line
  for (i = 1; i <= n_modes; i++) {
    line = "| " modes[i] " |"
    for (j = 1; j <= n_cols; j++) line = line " " values[key, modes[i], cols[j]] " |"
    if (has_laplace) line = line " " values[key, modes[i], "3x3"] " |"
    print line
  }
  print ""
}

function chart_blocks(    i) {
  for (i = 1; i <= n_lines; i++)
    printf "%s\"%s\"\n%s", (i > 1 ? "\n\n" : ""), lines[i], rows[lines[i]]
}

function tables(    k, part, v, summary) {
  for (k = 1; k <= n_keys; k++) {
    split(keys[k], part, SUBSEP)
    print "### Device " part[1] " (" (part[1] in name ? name[part[1]] : "?") "), " part[2] " RGBA"
    print ""
    table(ms, keys[k], "median kernel ms (frame on the device)")
    table(fps, keys[k], "frames/s from host memory")
  }
  if (!n_cases) { print "No case measured: see engine.log."; return }
  for (v in verdicts) summary = summary (summary ? ", " : "") verdicts[v] " " v
  print "**Check against the C reference:** " n_cases " cases: " summary "."
  if (mismatches) print "Mismatches:" mismatches
  else print "No mismatch (exact = the reference's bytes; same = the bytes of the blur mode run before it)."
}

END { if (chart != "") chart_blocks(); else tables() }
