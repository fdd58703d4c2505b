# clfilter's kernels against the memory floor and OpenCV, for run.sh.
# Usage: awk -f ratio-report.awk engine.log floor.tsv opencv.tsv engine.tsv
#   markdown for results.md: for every device and frame size that clf-floor
#   measured, a table of clfilter's median kernel ms per case (laplace, then
#   each blur mode and radius), its ratio to the device's copy floor, and
#   OpenCV's median ms for the same operation with the ratio OpenCV /
#   clfilter: on the CPU (cv2.blur, cv2.filter2D) and through OpenCL on the
#   same device (cv2.UMat).  A missing file or case shows as "-".
BEGIN { FS = "\t" }

# engine.log: "device 0:0: NAME".
FILENAME == ARGV[1] {
  sep = index($0, ": ")
  if ($0 ~ /^device / && sep) name[substr($0, 8, sep - 8)] = substr($0, sep + 2)
  next
}

# floor.tsv: device-name size what median-us min-us GB/s (no header).
FILENAME == ARGV[2] {
  if ($3 == "copy") copy_us[$1, $2] = $4
  if ($3 == "three-row-stencil") stencil_us[$1, $2] = $4
  if ($3 == "copy" && !(($1, $2) in floor_seen)) {
    floor_seen[$1, $2] = 1
    floors[++n_floors] = $1 SUBSEP $2
  }
  next
}

# opencv.tsv: backend device function size radius median-ms frames/s [depth].
FILENAME == ARGV[3] {
  if (FNR == 1 || ($8 != "" && $8 != "8-bit")) next
  op = $3 == "blur" ? "blur r=" $5 : "sharpen"
  cv_ms[$1, op, $4] = $6
  if ($1 == "opencl") cv_device[$4] = $2
  next
}

# engine.tsv: device mode radius size median min frames host-fps check format.
FNR == 1 { next }
$2 != "box" && $5 != "-" && $10 == "rgba" {
  dev = name[$1] != "" ? name[$1] : $1
  label = $2 == "laplace" ? "laplace" : $2 " r=" $3
  if (!((dev, $4, label) in ms)) {
    cases[dev, $4, ++n_cases[dev, $4]] = label
    op_of[label] = $2 == "laplace" ? "sharpen" : "blur r=" $3
  }
  ms[dev, $4, label] = $5
}

function cell(v) { return v == "" ? "-" : v }
function ratio(a, b) { return a == "" || b == "" || b == 0 ? "-" : sprintf("%.1f", a / b) }

END {
  for (f = 1; f <= n_floors; f++) {
    split(floors[f], key, SUBSEP)
    dev = key[1]; size = key[2]
    if (!n_cases[dev, size]) continue
    copy = copy_us[dev, size] / 1000
    # OpenCV's OpenCL rows are comparable where they ran on this device.
    same = (size in cv_device) \
      && substr(dev, length(dev) - length(cv_device[size]) + 1) == cv_device[size]
    printf "\n### %s, %s RGBA\n\n", dev, size
    printf "Copy floor %.4f ms (clEnqueueCopyBuffer of the frame), three-row stencil %.4f ms.", \
      copy, stencil_us[dev, size] / 1000
    if ((size in cv_device) && !same)
      printf " OpenCV's OpenCL rows ran on another device: left out."
    printf "\n\n| case | clfilter ms | x copy floor | OpenCV CPU ms | CPU / clfilter | OpenCV OpenCL ms | OpenCL / clfilter |\n"
    printf "|---|---:|---:|---:|---:|---:|---:|\n"
    for (i = 1; i <= n_cases[dev, size]; i++) {
      label = cases[dev, size, i]; t = ms[dev, size, label]; op = op_of[label]
      cpu = cv_ms["cpu", op, size]; ocl = same ? cv_ms["opencl", op, size] : ""
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", label, t, ratio(t, copy), \
        cell(cpu), ratio(cpu, t), cell(ocl), ratio(ocl, t)
    }
  }
}
