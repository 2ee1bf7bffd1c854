package drv
import ("testing";"fmt";"time"
 "github.com/schedlab/schedlab/experiments/tracecheck"
 "github.com/schedlab/schedlab/traces/canonical"
 "github.com/schedlab/schedlab/traces")
func TestDrv(t *testing.T){
 w, err := canonical.Read("/tmp/gtrace/slice.arrow"); if err != nil {t.Fatal(err)}
 t0 := time.Now()
 c, err := tracecheck.Compare(w, traces.Minute); if err != nil {t.Fatal(err)}
 fmt.Printf("%v start %d end %d mean %v max %v total %v %v pol %+v rejected %d\n", time.Since(t0), c.Start, c.End, c.MeanAbs, c.MaxAbs, c.TotalMeanAbs, c.TotalMaxAbs, c.Policy, c.HoldsRejected)
 for i := 0; i < len(c.Trace.T); i += 3 { fmt.Printf("%6.0f %.3f %.3f | %.3f %.3f\n", c.Trace.T[i], c.TraceTotal.CPU[i], c.ReplayTotal.CPU[i], c.TraceTotal.Mem[i], c.ReplayTotal.Mem[i]) }
}
