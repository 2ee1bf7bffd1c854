package bpf

import (
	"embed"

	"github.com/schedlab/schedlab/internal/datapath"
)

// scenarios are the workloads of the paper's Figs. 1 and 9 that this package's tests write
// (`go test ./policies/bpf -update`) and the specs bpf-fig1 and bpf-fig9 replay; compiled in, so
// that those specs run from any directory.
//
//go:embed testdata/fig1_jobs.txt testdata/fig9_jobs.txt
var scenarios embed.FS

func init() { datapath.RegisterFixtures("policies/bpf", scenarios) }
