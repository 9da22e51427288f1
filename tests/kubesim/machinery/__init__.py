"""What the control plane's components share, as Kubernetes takes it from k8s.io/apimachinery,
k8s.io/api and k8s.io/utils: Status errors, quantities, label and field selectors, the patch
formats, the Go types of the API and their JSON and protobuf encodings, go-spew's dump."""
