// Package depspin pins module dependencies during bootstrap; removed once every dependency is imported by real code.
package depspin
import (
 _ "github.com/apache/arrow/go/v15/arrow"
 _ "github.com/apache/arrow/go/v15/parquet/pqarrow"
 _ "github.com/spf13/cobra"
 _ "github.com/spf13/viper"
 _ "gonum.org/v1/plot"
 _ "gonum.org/v1/gonum/optimize/convex/lp"
 _ "github.com/tetratelabs/wazero"
 _ "golang.org/x/perf/benchmath"
)
