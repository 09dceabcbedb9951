package plan_test

import (
	"fmt"
	"strings"

	"github.com/rpcbench/rpcbench/plan"
	"github.com/rpcbench/rpcbench/transport"
)

// A target file with two named, weighted entries becomes a plan of two endpoints and a Source
// that renders each request's templates.
func ExampleNewSource() {
	file := `# name: put
# weight: 2
PUT http://127.0.0.1:8080/v0/entity?id={{seq}}

# name: get
# weight: 8
GET http://127.0.0.1:8080/v0/entity?id={{randInt 1 9}}
`
	targets, err := plan.ReadTargets("targets.http", strings.NewReader(file), "", ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	endpoints, err := plan.GroupTargets(targets)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := plan.Plan{Endpoints: endpoints, Traffic: plan.Traffic{Targets: "targets.http"}}.Normalized()
	src, err := plan.NewSource(p, plan.Inputs{Targets: targets, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	var r transport.Request // one per sender, reused
	count := map[int]int{}
	for i := range uint64(1000) {
		if err := src.Fill(i, &r); err != nil {
			fmt.Println(err)
			return
		}
		count[r.Endpoint]++
	}
	for k, e := range p.Endpoints {
		fmt.Printf("%s: weight %v, %d%% of the requests\n", e.Name, e.Weight, (count[k]+5)/10)
	}
	fmt.Printf("%s %s\n", r.Method, r.Path)
	// Output:
	// put: weight 2, 20% of the requests
	// get: weight 8, 80% of the requests
	// GET /v0/entity?id=2
}

func ExampleParseTemplate() {
	_, err := plan.ParseTemplate("/v0/entity?id={{randint 1 1e8}}", nil)
	fmt.Println(err)
	// Output:
	// template column 17: unknown function "randint"; want randInt, seq, uuid, randString, randHex, randAddress, randHash, pick, now, nowUnix, nowRFC3339 or .field
}
