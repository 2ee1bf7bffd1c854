package jvu

import (
	"embed"

	"github.com/schedlab/schedlab/internal/datapath"
)

// quickTrace is the committed slice of the Google 2011 trace the reproductions read at label
// quick (QuickSrc); compiled in, so that they run from any directory.
//
//go:embed testdata/google2011
var quickTrace embed.FS

func init() { datapath.RegisterFixtures("experiments/jvu", quickTrace) }
