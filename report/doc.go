// Package report draws paper-style figures and tables from plain in-memory
// data, so that schedlab's experiments can reproduce the plots of the
// papers they follow: lines of a mean across seeds with 95% confidence
// bands, grouped bars with confidence-interval error bars, box plots,
// CDFs and CCDFs, stacked areas over time (e.g. resource usage per queue),
// scatter plots, Gantt charts and region (forest) plots of a claim along a
// sensitivity study (NewRegion).
//
// A Figure is built with one of the constructors (NewLines, NewBars,
// NewBoxes, NewCDF, NewCCDF, NewStackedArea, NewScatter) from plain slices
// and written with Figure.Render (format from the file extension),
// Figure.Save (several formats at once) or Figure.Encode (to an io.Writer).
// SVG, PNG and PDF are supported. Files are written atomically: a
// temporary file in the target directory is renamed into place once
// complete.
//
// Every figure uses one Style (DefaultStyle): 3.3in × 2.4in to fit a
// paper column, 8–9 pt Liberation Sans, 1 pt lines, the colour-blind-safe
// Okabe–Ito palette with distinct markers and dash patterns, light grid
// lines, and a legend placed in a corner of the plot area that covers no
// data, or above the plot when no corner is free. Axis labels are
// required and carry units in square brackets, e.g. "Completion time [s]"
// (see Label).
//
// Output is deterministic: the same data give byte-identical SVG (PDF
// files embed a creation date). Invalid input — mismatched lengths, empty
// series, NaN or infinite values, non-positive values on a log axis —
// yields an error wrapping ErrInvalid that names the figure ID and the
// series label; nothing panics.
//
// Tables (Table) are written as Markdown, CSV or LaTeX (booktabs), with
// FormatNumber, FormatMeanCI and FormatRelChange for consistent numbers.
// The statistics behind bands, error bars and comparisons live in the
// subpackage report/stats.
//
// This package must not import other schedlab packages: experiments depend
// on it, not the other way round.
//
// The golden SVGs in testdata are regenerated with
//
//	go test ./report -update
//
// and `go test ./report -run Golden -pngdir DIR` additionally writes every
// test figure as PNG into DIR for visual review.
package report
