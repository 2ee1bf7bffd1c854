package report_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/schedlab/schedlab/report"
)

// This example builds a line figure of a mean across three seeds with 95%
// confidence bands and saves it as SVG, PNG and PDF.
func Example() {
	dir, err := os.MkdirTemp("", "report-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	tqs := []float64{1, 2, 4, 8} // number of throughput queues
	fig := report.NewLines("fig5", "",
		"Number of TQs", report.Label("Avg. LQ completion time", "s"),
		report.Series{Label: "DRF", X: tqs, Samples: [][]float64{
			{61, 64, 62}, {80, 86, 90}, {120, 112, 131}, {160, 150, 171},
		}},
		report.Series{Label: "BPF", X: tqs, Samples: [][]float64{
			{41, 42, 44}, {44, 46, 43}, {48, 45, 50}, {52, 49, 51},
		}},
	)
	fig.YRange = &report.Range{Min: 0, Max: 200}

	paths, err := fig.Save(dir, "fig5", "svg", "png", "pdf")
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}

	// The same numbers as a table.
	tab := report.NewTable("fig5", "Avg. LQ completion time [s]", "TQs", "DRF", "BPF")
	for i, x := range tqs {
		row := []string{fmt.Sprint(x)}
		for _, s := range fig.Series {
			row = append(row, report.FormatMeanCISamples(s.Samples[i]))
		}
		tab.AddRow(row...)
	}
	if err := tab.WriteMarkdown(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// fig5.svg
	// fig5.png
	// fig5.pdf
	// **Avg. LQ completion time [s]**
	//
	// | TQs |        DRF |        BPF |
	// | :-- | ---------: | ---------: |
	// | 1   | 62.3 ± 3.8 | 42.3 ± 3.8 |
	// | 2   |    85 ± 13 | 44.3 ± 3.8 |
	// | 4   |   121 ± 24 | 47.7 ± 6.3 |
	// | 8   |   160 ± 26 | 50.7 ± 3.8 |
}
