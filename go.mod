module github.com/jdwpscache/scache

go 1.24

require (
	github.com/hashicorp/golang-lru/v2 v2.0.7
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/google/gopacket v1.1.19 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
