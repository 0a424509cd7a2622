// compose-check validates docker-compose.yml with compose-go, the loader and JSON-schema
// validation that `docker compose` itself uses, on machines without a container engine.
//
//	go run ./scripts/compose-check docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check FILE")
		os.Exit(2)
	}
	path, err := filepath.Abs(os.Args[1])
	if err != nil {
		fail(err)
	}
	options, err := cli.NewProjectOptions([]string{path}, cli.WithWorkingDirectory(filepath.Dir(path)), cli.WithName("amora"))
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	for _, name := range project.ServiceNames() {
		service := project.Services[name]
		if service.HealthCheck == nil {
			fail(fmt.Errorf("service %s has no health check", name))
		}
	}
	fmt.Printf("%s: valid, services %v\n", filepath.Base(path), project.ServiceNames())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compose-check:", err)
	os.Exit(1)
}
