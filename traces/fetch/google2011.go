package fetch

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Google2011BaseURL is the public bucket of the Google cluster trace clusterdata-2011-2.
const Google2011BaseURL = "https://commondatastorage.googleapis.com/clusterdata-2011-2"

// Google2011Tables are the trace's tables and their number of parts.
var Google2011Tables = map[string]int{
	"job_events":         500,
	"task_events":        500,
	"task_usage":         500,
	"task_constraints":   500,
	"machine_events":     1,
	"machine_attributes": 1,
}

// Google2011Files lists the part files of tables whose index is in parts (nil: all parts), as
// baseURL/TABLE/part-NNNNN-of-MMMMM.csv.gz downloaded to dest/TABLE/ — the layout google2011.Discover
// reads. Single-part tables (machine_events, machine_attributes) only have part 0.
func Google2011Files(baseURL, dest string, tables []string, parts []int) ([]File, error) {
	if baseURL == "" {
		baseURL = Google2011BaseURL
	}
	baseURL = strings.TrimSuffix(baseURL, "/")
	var out []File
	for _, t := range tables {
		n, ok := Google2011Tables[t]
		if !ok {
			names := make([]string, 0, len(Google2011Tables))
			for name := range Google2011Tables {
				names = append(names, name)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("fetch: unknown google2011 table %q (tables: %s)", t, strings.Join(names, ", "))
		}
		for p := range n {
			if parts != nil && !slices.Contains(parts, p) {
				continue
			}
			name := fmt.Sprintf("part-%05d-of-%05d.csv.gz", p, n)
			out = append(out, File{URL: baseURL + "/" + t + "/" + name, Dest: filepath.Join(dest, t, name)})
		}
	}
	return out, nil
}

// ParseParts parses a part list such as "0-9,20,30-35" (inclusive ranges) into sorted indices.
func ParseParts(s string) ([]int, error) {
	var parts []int
	for _, field := range strings.Split(s, ",") {
		field = strings.TrimSpace(field)
		lo, hi, isRange := strings.Cut(field, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("fetch: parts %q: %q is not a part number or range", s, field)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("fetch: parts %q: %q is not a range lo-hi with lo ≤ hi", s, field)
			}
		}
		if b > 99999 {
			return nil, fmt.Errorf("fetch: parts %q: part %d too large", s, b)
		}
		for p := a; p <= b; p++ {
			parts = append(parts, p)
		}
	}
	slices.Sort(parts)
	return slices.Compact(parts), nil
}
