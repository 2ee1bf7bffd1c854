package google2011

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Source names the input tables. Each entry is a file or a directory; a directory stands for its
// .csv and .csv.gz files in name order (part-00000-of-00500 before part-00001-of-00500). The files
// of a table must be given in time order, as the published parts are.
type Source struct {
	JobEvents     []string
	TaskEvents    []string
	MachineEvents []string
}

// Discover returns the tables under dir: its job_events/, task_events/ and machine_events/
// subdirectories (the layout of the published trace and of `schedlab trace fetch`). If dir is
// itself one table's directory (named job_events, ...), it is that table.
func Discover(dir string) (Source, error) {
	var src Source
	st, err := os.Stat(dir)
	if err != nil {
		return src, fmt.Errorf("google2011: %w", err)
	}
	if !st.IsDir() {
		return src, fmt.Errorf("google2011: %s: not a directory", dir)
	}
	if t := tableOf(filepath.Base(filepath.Clean(dir))); t != nil {
		*t(&src) = []string{dir}
		return src, nil
	}
	found := false
	for _, table := range []string{JobEventsTable, TaskEventsTable, MachineEventsTable} {
		sub := filepath.Join(dir, table)
		if st, err := os.Stat(sub); err == nil && st.IsDir() {
			*tableOf(table)(&src) = []string{sub}
			found = true
		}
	}
	if !found {
		return src, fmt.Errorf("google2011: %s: no %s/, %s/ or %s/ subdirectory", dir, JobEventsTable, TaskEventsTable, MachineEventsTable)
	}
	return src, nil
}

// tableOf returns an accessor for the Source field of the table a file or directory name holds,
// or nil when the name mentions no table or more than one.
func tableOf(name string) func(*Source) *[]string {
	var hits []func(*Source) *[]string
	if strings.Contains(name, JobEventsTable) {
		hits = append(hits, func(s *Source) *[]string { return &s.JobEvents })
	}
	if strings.Contains(name, TaskEventsTable) {
		hits = append(hits, func(s *Source) *[]string { return &s.TaskEvents })
	}
	if strings.Contains(name, MachineEventsTable) {
		hits = append(hits, func(s *Source) *[]string { return &s.MachineEvents })
	}
	if len(hits) != 1 {
		return nil
	}
	return hits[0]
}

// SourceOf builds a Source from command-line paths: a trace root directory (see Discover), or a
// table's directory or file whose name, or whose directory's name, says which table it holds
// (job_events/, task_events_part-00000.csv, mini_300jobs_job_events.csv,
// job_events/part-00000-of-00500.csv.gz, ...). Paths keep their order.
func SourceOf(paths ...string) (Source, error) {
	var src Source
	if len(paths) == 0 {
		return src, fmt.Errorf("google2011: no input paths")
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return src, fmt.Errorf("google2011: %w", err)
		}
		if t := tableOf(filepath.Base(filepath.Clean(p))); t != nil {
			*t(&src) = append(*t(&src), p)
			continue
		}
		if !st.IsDir() {
			// A part file named only by number (part-00000-of-00500.csv.gz) is known by its
			// directory, as the trace lays it out: job_events/part-00000-of-00500.csv.gz.
			if t := tableOf(filepath.Base(filepath.Dir(filepath.Clean(p)))); t != nil {
				*t(&src) = append(*t(&src), p)
				continue
			}
			return src, fmt.Errorf("google2011: %s: cannot tell which table the file holds (its name or its directory's should contain %s, %s or %s)", p, JobEventsTable, TaskEventsTable, MachineEventsTable)
		}
		d, err := Discover(p)
		if err != nil {
			return src, err
		}
		src.JobEvents = append(src.JobEvents, d.JobEvents...)
		src.TaskEvents = append(src.TaskEvents, d.TaskEvents...)
		src.MachineEvents = append(src.MachineEvents, d.MachineEvents...)
	}
	return src, nil
}

// expand lists the files of paths: files as given, directories as their .csv/.csv.gz files in
// name order (hidden files and partial downloads are skipped).
func expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("google2011: %w", err)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("google2011: %w", err)
		}
		var files []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || strings.HasPrefix(n, ".") || !(strings.HasSuffix(n, ".csv") || strings.HasSuffix(n, ".csv.gz")) {
				continue
			}
			files = append(files, filepath.Join(p, n))
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("google2011: %s: no .csv or .csv.gz files", p)
		}
		slices.Sort(files)
		out = append(out, files...)
	}
	return out, nil
}

// describe summarizes a table's files for provenance: "job_events: 500 files
// (dir/part-00000-of-00500.csv.gz .. dir/part-00499-of-00500.csv.gz)".
func describe(table string, files []string) string {
	switch len(files) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s: %s", table, files[0])
	}
	return fmt.Sprintf("%s: %d files (%s .. %s)", table, len(files), files[0], files[len(files)-1])
}

// PartName is the file name of part i of a table in the published trace: part-00000-of-00500.csv.gz.
func PartName(i int) string { return fmt.Sprintf("part-%05d-of-00500.csv.gz", i) }

// Window returns the Source of parts first..last (inclusive) of job_events and task_events under
// the trace root dir — the input of a task-level import of that window — after checking that
// every file exists.
func Window(dir string, first, last int) (Source, error) {
	var src Source
	if first < 0 || last < first || last > 499 {
		return src, fmt.Errorf("google2011: parts %d..%d: want 0 ≤ first ≤ last ≤ 499", first, last)
	}
	for i := first; i <= last; i++ {
		for _, t := range []struct {
			table string
			files *[]string
		}{{JobEventsTable, &src.JobEvents}, {TaskEventsTable, &src.TaskEvents}} {
			p := filepath.Join(dir, t.table, PartName(i))
			if _, err := os.Stat(p); err != nil {
				return src, fmt.Errorf("google2011: %w", err)
			}
			*t.files = append(*t.files, p)
		}
	}
	return src, nil
}
