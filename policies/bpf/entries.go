package bpf

import "github.com/schedlab/schedlab/policies"

// Entries lists the family for registration (policies/builtin registers them).
func Entries() []policies.Entry {
	return []policies.Entry{
		{Name: BPFName, Description: "bounded priority fairness: LQ admission into hard/soft/elastic classes, then hard, SRPT soft, DRF elastic", New: NewBPF},
		{Name: NBPFName, Description: "naive BPF: BPF without the soft class (an LQ is hard or elastic)", New: NewNBPF},
		{Name: MBVTName, Description: "multi-resource borrowed virtual time: LQ bursts warp their DRF virtual time, smallest first", New: NewMBVT},
	}
}
