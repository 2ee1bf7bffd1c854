package tpcdag

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/schedlab/schedlab/traces"
)

// WriteJob writes one DAG in the format Parse reads: the comment "# <id>: <comment>", the
// header with dagId id, the job's arrival and queue, a line per stage with its task duration,
// its cpu and mem demands (fractions of one machine, as BoPF's jobs_input files carry) and its
// tasks, and an "ata" edge per parent.
func WriteJob(w io.Writer, id int64, comment string, j *traces.Job) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %d: %s\n%d %d %s %s\n", id, comment, len(j.Stages), id, f(traces.Seconds(j.Submit)), j.Queue)
	edges := 0
	for _, s := range j.Stages {
		fmt.Fprintf(bw, "%s %s %s %s %d\n", s.Name, f(traces.Seconds(s.Duration)), f(s.Demand.Float(0)), f(s.Demand.Float(1)), s.Tasks)
		edges += len(s.Parents)
	}
	fmt.Fprintf(bw, "%d\n", edges)
	for _, s := range j.Stages {
		for _, p := range s.Parents {
			fmt.Fprintf(bw, "%s %s ata\n", j.Stages[p].Name, s.Name)
		}
	}
	return bw.Flush()
}
