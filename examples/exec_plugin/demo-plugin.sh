#!/bin/sh
# A stand-in for `aws eks get-token`, `gke-gcloud-auth-plugin` or `kubelogin`: an exec
# credential plugin prints an ExecCredential on stdout. This one hands out the token in
# $DEMO_TOKEN (set by the kubeconfig's exec.env), in the apiVersion the client asked for
# (KUBERNETES_EXEC_INFO), and says on stderr which server it was asked about.
set -eu
api=$(printf '%s' "${KUBERNETES_EXEC_INFO:-}" | sed -n 's/.*"apiVersion":"\([^"]*\)".*/\1/p')
server=$(printf '%s' "${KUBERNETES_EXEC_INFO:-}" | sed -n 's/.*"server":"\([^"]*\)".*/\1/p')
echo "demo-plugin: token for ${server:-an unknown server}" >&2
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"}}\n' \
  "${api:-client.authentication.k8s.io/v1}" "${DEMO_TOKEN:?DEMO_TOKEN is not set}"
