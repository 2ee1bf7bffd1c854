// Package borg2019 recognises tables of Google's 2019 cluster trace (clusterdata-2019, "Borg
// v3", eight cells, May 2019) so that they are refused with a clear explanation instead of being
// misread by the 2011 reader.
//
// schedlab does not read the 2019 trace. Its schema is not the 2011 one with new columns: jobs
// are "collections" (which may also be alloc sets) and tasks are "instances"; job and task events
// live in collection_events and instance_events, with dependencies between collections
// (start_after_collection_ids) and parent collections; event types are renumbered (0 SUBMIT,
// 1 QUEUE, 2 ENABLE, 3 SCHEDULE, 4 EVICT, 5 FAIL, 6 FINISH, 7 KILL, ... where 2011 has 4 FINISH);
// cpu is given in normalized compute units (NCU) and memory normalized, both inside nested
// resource_request records; and the data is published as BigQuery tables and their JSON exports,
// not as headerless CSV parts. Read as 2011 data it would parse and be wrong. Use the 2011 reader
// (package traces/google2011) for clusterdata-2011-2.
//
// Detect looks at a file's name and first bytes: 2019-only table names (collection_events,
// instance_events, instance_usage, or "clusterdata_2019"), JSON objects carrying 2019 field
// names, or a CSV header naming 2019 columns. Gzip-compressed heads are decompressed first.
// Headerless CSV is not flagged: the 2019 tables have nested records and cannot be exported as
// flat CSV, and the 2011 parts are headerless CSV.
package borg2019

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// HeadBytes is how much of a file DetectFile reads.
const HeadBytes = 64 << 10

// ErrUnsupported is wrapped by every error Detect returns for a 2019-format input (so is the
// standard library's errors.ErrUnsupported).
var ErrUnsupported = errors.New("borg2019: the Google cluster-data 2019 (Borg v3) trace format is not supported")

// UnsupportedError reports a 2019-format input.
type UnsupportedError struct {
	File     string
	Table    string // the 2019 table the input looks like, e.g. "instance_events"; "" if unknown
	Evidence string // what gave it away
}

// Error explains which 2019 table the input is, how it was recognised and why it is refused.
func (e *UnsupportedError) Error() string {
	table := "table"
	if e.Table != "" {
		table = e.Table + " table"
	}
	return fmt.Sprintf("borg2019: %s: this is a Google cluster-data 2019 (Borg v3) %s (%s), which schedlab does not read: "+
		"the 2019 schema differs from 2011 (jobs and tasks are collections and instances in collection_events/instance_events, "+
		"with alloc sets and start_after_collection_ids dependencies; event types are renumbered, e.g. FINISH is 6, not 4; "+
		"cpu is in normalized compute units and memory normalized, inside nested resource_request records; "+
		"it ships as BigQuery/JSON exports, not headerless CSV), so reading it as 2011 data would misread it; "+
		"use the 2011 reader (traces/google2011) with clusterdata-2011-2 job_events/task_events instead",
		e.File, table, e.Evidence)
}

// Unwrap returns ErrUnsupported and errors.ErrUnsupported.
func (e *UnsupportedError) Unwrap() []error { return []error{ErrUnsupported, errors.ErrUnsupported} }

// tableNames are the 2019 tables; the first three do not exist in the 2011 trace.
var tableNames = []string{"collection_events", "instance_events", "instance_usage", "machine_events", "machine_attributes"}

// fields maps 2019 field names that never occur in 2011 data to the table they point to ("" when
// several tables have them).
var fields = map[string]string{
	"collection_id":                   "",
	"collection_type":                 "",
	"alloc_collection_id":             "",
	"instance_index":                  "",
	"alloc_instance_index":            "",
	"missing_type":                    "",
	"collection_name":                 "collection_events",
	"collection_logical_name":         "collection_events",
	"parent_collection_id":            "collection_events",
	"start_after_collection_ids":      "collection_events",
	"max_per_machine":                 "collection_events",
	"max_per_switch":                  "collection_events",
	"vertical_scaling":                "collection_events",
	"resource_request":                "instance_events",
	"average_usage":                   "instance_usage",
	"maximum_usage":                   "instance_usage",
	"random_sample_usage":             "instance_usage",
	"assigned_memory":                 "instance_usage",
	"page_cache_memory":               "instance_usage",
	"cycles_per_instruction":          "instance_usage",
	"memory_accesses_per_instruction": "instance_usage",
	"cpu_usage_distribution":          "instance_usage",
	"tail_cpu_usage_distribution":     "instance_usage",
	"switch_id":                       "machine_events",
	"missing_data_reason":             "machine_events",
}

// DetectFile reads the start of path and calls Detect. It returns nil for inputs that are not
// 2019 tables, an *UnsupportedError for 2019 tables, and other errors when the file cannot be
// read.
func DetectFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("borg2019: %w", err)
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, HeadBytes))
	if err != nil {
		return fmt.Errorf("borg2019: %s: %w", path, err)
	}
	return Detect(path, head)
}

// Detect reports whether the input named name, starting with head, is a table of the 2019 trace:
// it returns an *UnsupportedError (wrapping ErrUnsupported) if so and nil otherwise.
func Detect(name string, head []byte) error {
	base := strings.ToLower(filepath.Base(name))
	for _, t := range tableNames[:3] {
		if strings.Contains(base, t) {
			return &UnsupportedError{File: name, Table: t, Evidence: fmt.Sprintf("file name contains %q, a 2019-only table", t)}
		}
	}
	if strings.Contains(strings.ReplaceAll(strings.ToLower(name), "-", "_"), "clusterdata_2019") {
		return &UnsupportedError{File: name, Table: tableOf(base), Evidence: "path names clusterdata-2019"}
	}
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(head))
		if err != nil {
			return nil // not readable gzip: nothing to recognise
		}
		head, _ = io.ReadAll(io.LimitReader(zr, HeadBytes)) // a cut-off stream yields what it has
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Buffer(make([]byte, 0, 4096), HeadBytes+1)
	for n := 0; n < 5 && sc.Scan(); {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		n++
		if ev, table := jsonLine(line); ev != "" {
			return &UnsupportedError{File: name, Table: or(table, tableOf(base)), Evidence: ev}
		}
		if n == 1 {
			if ev, table := csvHeader(line); ev != "" {
				return &UnsupportedError{File: name, Table: or(table, tableOf(base)), Evidence: ev}
			}
		}
	}
	return nil
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// tableOf names the 2019 table a file name mentions, if any.
func tableOf(base string) string {
	for _, t := range tableNames {
		if strings.Contains(base, t) {
			return t
		}
	}
	return ""
}

// jsonLine recognises a JSON object with 2019 field names.
func jsonLine(line string) (evidence, table string) {
	if !strings.HasPrefix(line, "{") {
		return "", ""
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &obj); err != nil {
		return "", ""
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	return match(keys, "JSON record with 2019 field")
}

// csvHeader recognises a CSV header with 2019 column names (nested fields may be flattened as
// "resource_request.cpus" or "resource_request_cpus").
func csvHeader(line string) (evidence, table string) {
	var cols []string
	for _, c := range strings.Split(line, ",") {
		c = strings.Trim(strings.TrimSpace(c), `"`)
		if i := strings.IndexByte(c, '.'); i > 0 {
			c = c[:i]
		}
		for _, suffix := range []string{"_cpus", "_memory"} {
			if t := strings.TrimSuffix(c, suffix); t != c {
				if _, ok := fields[t]; ok {
					c = t
				}
			}
		}
		cols = append(cols, c)
	}
	return match(cols, "CSV header with 2019 column")
}

func match(names []string, what string) (evidence, table string) {
	var hits []string
	for _, n := range names {
		if t, ok := fields[n]; ok {
			hits = append(hits, n)
			if table == "" {
				table = t
			}
		}
	}
	if len(hits) == 0 {
		return "", ""
	}
	slices.Sort(hits)
	hits = slices.Compact(hits)
	if len(hits) > 3 {
		hits = hits[:3]
	}
	s := "s"
	if len(hits) == 1 {
		s = ""
	}
	// instance_events and instance_usage share instance_index; prefer the more specific hit.
	for _, n := range hits {
		if t := fields[n]; t != "" {
			table = t
		}
	}
	return fmt.Sprintf("%s%s %s", what, s, strings.Join(hits, ", ")), table
}
