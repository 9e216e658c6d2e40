# SPDX-License-Identifier: MIT
# Flatten JSON into one "path<TAB>value" line per scalar, e.g.
#   [{"dev":"namespace0.0","daxregion":{"devices":[{"chardev":"dax0.0"}]}}]
# gives
#   [0].dev	namespace0.0
#   [0].daxregion.devices[0].chardev	dax0.0
# so the guest's checks can find fields with grep/awk (busybox has no jq).
# Strings lose their quotes; \" and \\ are unescaped, other escapes kept.
{ buf = buf $0 "\n" }

function emit(v) {
	printf "%s\t%s\n", path[depth] (isarr[depth] ? "[" idx[depth] "]" : "." key), v
	seen[depth] = 1
}

function descend(arr,    p) {
	p = (depth == 0) ? "" : path[depth] (isarr[depth] ? "[" idx[depth] "]" : "." key)
	depth++
	path[depth] = p
	isarr[depth] = arr
	idx[depth] = 0
	key = ""
	expect_key[depth] = !arr
}

END {
	n = length(buf)
	depth = 0
	path[0] = ""
	isarr[0] = 1
	idx[0] = 0
	i = 1
	while (i <= n) {
		c = substr(buf, i, 1)
		if (index(" \t\r\n", c)) { i++; continue }
		if (c == "{" || c == "[") {
			descend(c == "[")
			i++
			continue
		}
		if (c == "}" || c == "]") {
			depth--
			i++
			continue
		}
		if (c == ",") {
			if (isarr[depth])
				idx[depth]++
			else
				expect_key[depth] = 1
			i++
			continue
		}
		if (c == ":") { i++; continue }
		if (c == "\"") {
			s = ""
			i++
			while (i <= n) {
				c = substr(buf, i, 1)
				if (c == "\\") {
					d = substr(buf, i + 1, 1)
					s = s ((d == "\"" || d == "\\" || d == "/") ? d : "\\" d)
					i += 2
					continue
				}
				if (c == "\"")
					break
				s = s c
				i++
			}
			i++
			if (!isarr[depth] && expect_key[depth]) {
				key = s
				expect_key[depth] = 0
			} else {
				emit(s)
			}
			continue
		}
		# number, true, false, null
		s = ""
		while (i <= n) {
			c = substr(buf, i, 1)
			if (index(",}] \t\r\n", c))
				break
			s = s c
			i++
		}
		emit(s)
	}
}
