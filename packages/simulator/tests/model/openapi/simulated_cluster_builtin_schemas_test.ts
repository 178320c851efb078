// The built-in kinds the simulated cluster describes field by field in OpenAPI v3 (pods,
// workloads, services, nodes, volumes, ingresses): unknown fields found at any depth under
// fieldValidation=Strict|Warn|Ignore and server-side apply, worded as kube-apiserver words them;
// realistic manifests accepted; documents that `kubectl explain` can walk.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  cronjobs,
  daemonsets,
  deployments,
  endpoints,
  ingresses,
  jobs,
  nodes,
  persistentvolumeclaims,
  persistentvolumes,
  pods,
  replicasets,
  services,
  statefulsets,
} from "../../../../../src/client/resource.ts";
import type { Status } from "../../../../../src/client/types.ts";
import { SimulatedCluster } from "../../../src/cluster/simulated_cluster.ts";

type Schema = Record<string, unknown>;
type Doc = { components: { schemas: Record<string, Schema> } };

function send(
  c: SimulatedCluster,
  method: string,
  path: string,
  body?: string,
  contentType = "application/json",
): Promise<Response> {
  return c.fetch(
    new Request(`http://sim.test${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { "Content-Type": contentType } }),
    }),
  );
}

const cluster = () =>
  new SimulatedCluster({
    resources: [
      services,
      endpoints,
      nodes,
      persistentvolumes,
      persistentvolumeclaims,
      statefulsets,
      daemonsets,
      replicasets,
      jobs,
      cronjobs,
      ingresses,
    ],
  });

const badDeployment = JSON.stringify({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: {
    replica: 3,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: { containers: [{ name: "nginx", imagee: "nginx:1.27" }] },
    },
  },
});

const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

/** A stored Deployment's containers. */
const containersOf = (d: unknown): unknown =>
  (d as { spec: { template: { spec: { containers: unknown } } } }).spec.template.spec.containers;

describe("SimulatedCluster built-in schemas: field validation at any depth", () => {
  test("Strict: unknown nested fields are a 400 with kube-apiserver's message; nothing is stored", async () => {
    const c = cluster();
    const res = await send(c, "POST", `${DEPLOYMENTS}?fieldValidation=Strict`, badDeployment);
    assert.equal(res.status, 400);
    const s = await res.json() as Status;
    assert.equal(s.reason, "BadRequest");
    assert.equal(
      s.message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagee"',
    );
    assert.equal(c.list(deployments).length, 0);
    c.close();
  });

  test("Strict: unknown and duplicate fields in document order, as kube-apiserver's own test has them", async () => {
    // The body of kube-apiserver's field validation integration test (a Deployment).
    const body = `{
      "apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "dupename", "name": "d", "labels": {"app": "nginx"}, "unknownMeta": "metaVal"},
      "spec": {
        "unknown1": "val1", "unknownDupe": "valDupe", "unknownDupe": "valDupe2",
        "paused": true, "paused": false,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{
          "name": "nginx", "image": "nginx:latest", "unknownNested": "val1",
          "imagePullPolicy": "Always", "imagePullPolicy": "Never"}]}}}}`;
    const c = cluster();
    const res = await send(c, "POST", `${DEPLOYMENTS}?fieldValidation=Strict`, body);
    assert.equal(res.status, 400);
    assert.equal(
      (await res.json() as Status).message,
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: duplicate field "metadata.name", unknown field "metadata.unknownMeta", unknown field "spec.unknown1", unknown field "spec.unknownDupe", duplicate field "spec.paused", unknown field "spec.template.spec.containers[0].unknownNested", duplicate field "spec.template.spec.containers[0].imagePullPolicy"',
    );
    c.close();
  });

  test("Warn (the default): stored without the unknown fields, one Warning header each", async () => {
    const c = cluster();
    for (const query of ["?fieldValidation=Warn", ""]) {
      const res = await send(c, "POST", `${DEPLOYMENTS}${query}`, badDeployment);
      assert.equal(res.status, 201, await res.clone().text());
      assert.equal(
        res.headers.get("warning"),
        '299 - "unknown field \\"spec.replica\\"", 299 - "unknown field \\"spec.template.spec.containers[0].imagee\\""',
      );
      const stored = c.get(deployments, { namespace: "default", name: "web" })!;
      const spec = stored.spec as unknown as Record<string, unknown>;
      assert.equal(Object.hasOwn(spec, "replica"), false);
      assert.deepEqual(containersOf(stored), [{ name: "nginx" }]);
      c.delete(deployments, { namespace: "default", name: "web" });
    }
    c.close();
  });

  test("Ignore: stored without the unknown fields, silently", async () => {
    const c = cluster();
    const res = await send(c, "POST", `${DEPLOYMENTS}?fieldValidation=Ignore`, badDeployment);
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("warning"), null);
    const stored = c.get(deployments, { namespace: "default", name: "web" })!;
    assert.deepEqual(containersOf(stored), [{ name: "nginx" }]);
    c.close();
  });

  test("updates, merge patches and status writes are validated at depth too", async () => {
    const c = cluster();
    assert.equal((await send(c, "POST", DEPLOYMENTS, badDeployment)).status, 201);
    const put = await send(
      c,
      "PUT",
      `${DEPLOYMENTS}/web?fieldValidation=Strict`,
      JSON.stringify({
        ...JSON.parse(badDeployment),
        spec: { ...JSON.parse(badDeployment).spec, replica: undefined, strategy: { tipe: "x" } },
      }),
    );
    assert.equal(put.status, 400);
    assert.match((await put.json() as Status).message!, /unknown field "spec\.strategy\.tipe"/);
    const patch = await send(
      c,
      "PATCH",
      `${DEPLOYMENTS}/web?fieldValidation=Strict`,
      '{"spec":{"template":{"spec":{"securityContext":{"runAsUsr":1}}}}}',
      "application/merge-patch+json",
    );
    assert.equal(patch.status, 400);
    assert.equal(
      (await patch.json() as Status).message,
      'strict decoding error: unknown field "spec.template.spec.securityContext.runAsUsr"',
    );
    const status = await send(
      c,
      "PATCH",
      `${DEPLOYMENTS}/web/status?fieldValidation=Strict`,
      '{"status":{"readyReplicas":1,"readyReplica":1}}',
      "application/merge-patch+json",
    );
    assert.equal(status.status, 400);
    assert.match((await status.json() as Status).message!, /unknown field "status\.readyReplica"/);
    c.close();
  });

  test("server-side apply: unknown fields fail its typed conversion (500), whatever fieldValidation says", async () => {
    const c = cluster();
    const manifest = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: web",
      "spec:",
      "  replica: 3",
      "  selector:",
      "    matchLabels: {app: web}",
      "  template:",
      "    metadata:",
      "      labels: {app: web}",
      "    spec:",
      "      containers:",
      "      - name: nginx",
      "        imagee: nginx",
      "        ports:",
      "        - containerPort: 80",
      "          protocol: TCP",
      "          hostPrt: 1",
      "",
    ].join("\n");
    for (const validation of ["Strict", "Warn", "Ignore"]) {
      const res = await send(
        c,
        "PATCH",
        `${DEPLOYMENTS}/web?fieldManager=kubectl&fieldValidation=${validation}`,
        manifest,
        "application/apply-patch+yaml",
      );
      assert.equal(res.status, 500, validation);
      const s = await res.json() as Status;
      assert.equal(s.reason, undefined);
      assert.equal(
        s.message,
        "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n" +
          "  .spec.replica: field not declared in schema\n" +
          '  .spec.template.spec.containers[name="nginx"].imagee: field not declared in schema\n' +
          '  .spec.template.spec.containers[name="nginx"].ports[containerPort=80,protocol="TCP"].hostPrt: field not declared in schema',
      );
    }
    assert.equal(c.list(deployments).length, 0);
    const one = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/pods/p?fieldManager=kubectl",
      '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"x"}],"nodeSelecter":{}}}',
      "application/apply-patch+yaml",
    );
    assert.equal(one.status, 500);
    assert.equal(
      (await one.json() as Status).message,
      "failed to create typed patch object (default/p; /v1, Kind=Pod): .spec.nodeSelecter: field not declared in schema",
    );
    const good = await send(
      c,
      "PATCH",
      `${DEPLOYMENTS}/web?fieldManager=kubectl&fieldValidation=Strict`,
      manifest.replace("replica:", "replicas:").replace("imagee:", "image:").replace(
        "          hostPrt: 1\n",
        "",
      ),
      "application/apply-patch+yaml",
    );
    assert.equal(good.status, 201, await good.clone().text());
    c.close();
  });
});

// Realistic manifests with many optional fields: none may be refused.
const podSpec = {
  serviceAccountName: "web",
  automountServiceAccountToken: false,
  restartPolicy: "Always",
  terminationGracePeriodSeconds: 30,
  dnsPolicy: "ClusterFirst",
  dnsConfig: {
    nameservers: ["1.1.1.1"],
    searches: ["svc"],
    options: [{ name: "ndots", value: "2" }],
  },
  hostAliases: [{ ip: "10.0.0.1", hostnames: ["db"] }],
  enableServiceLinks: false,
  priorityClassName: "high",
  nodeSelector: { "kubernetes.io/os": "linux" },
  imagePullSecrets: [{ name: "regcred" }],
  securityContext: {
    runAsNonRoot: true,
    runAsUser: 1000,
    fsGroup: 2000,
    fsGroupChangePolicy: "OnRootMismatch",
    seccompProfile: { type: "RuntimeDefault" },
    sysctls: [{ name: "net.core.somaxconn", value: "1024" }],
    supplementalGroups: [3000],
  },
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 100,
        podAffinityTerm: {
          labelSelector: { matchLabels: { app: "web" } },
          topologyKey: "kubernetes.io/hostname",
          matchLabelKeys: ["pod-template-hash"],
        },
      }],
    },
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{
          matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }],
        }],
      },
    },
  },
  tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }, {
    key: "node.kubernetes.io/not-ready",
    operator: "Exists",
    effect: "NoExecute",
    tolerationSeconds: 300,
  }],
  topologySpreadConstraints: [{
    maxSkew: 1,
    topologyKey: "topology.kubernetes.io/zone",
    whenUnsatisfiable: "ScheduleAnyway",
    labelSelector: { matchExpressions: [{ key: "app", operator: "In", values: ["web"] }] },
  }],
  initContainers: [{
    name: "migrate",
    image: "app:1",
    command: ["/bin/migrate"],
    restartPolicy: "Always",
    envFrom: [{ configMapRef: { name: "settings" } }, {
      prefix: "DB_",
      secretRef: { name: "db", optional: true },
    }],
  }],
  containers: [{
    name: "app",
    image: "app:1",
    imagePullPolicy: "IfNotPresent",
    args: ["--port=8080"],
    workingDir: "/srv",
    ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }, {
      containerPort: 9090,
      hostPort: 9090,
      hostIP: "0.0.0.0",
    }],
    env: [
      { name: "MODE", value: "prod" },
      { name: "POD", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
      {
        name: "MEM",
        valueFrom: {
          resourceFieldRef: { containerName: "app", resource: "limits.memory", divisor: "1Mi" },
        },
      },
      {
        name: "PASS",
        valueFrom: { secretKeyRef: { name: "db", key: "password", optional: false } },
      },
      { name: "CONF", valueFrom: { configMapKeyRef: { name: "settings", key: "conf" } } },
    ],
    resources: {
      requests: { cpu: "100m", memory: "128Mi", "nvidia.com/gpu": 1 },
      limits: { cpu: 1, memory: "1Gi" },
    },
    resizePolicy: [{ resourceName: "cpu", restartPolicy: "NotRequired" }],
    volumeMounts: [
      { name: "data", mountPath: "/data", subPath: "app", readOnly: false },
      { name: "conf", mountPath: "/etc/app", readOnly: true, mountPropagation: "None" },
      { name: "tmp", mountPath: "/tmp", recursiveReadOnly: "Disabled" },
    ],
    livenessProbe: {
      httpGet: {
        path: "/healthz",
        port: "http",
        scheme: "HTTP",
        httpHeaders: [{ name: "X", value: "1" }],
      },
      initialDelaySeconds: 5,
      periodSeconds: 10,
      timeoutSeconds: 2,
      failureThreshold: 3,
    },
    readinessProbe: { tcpSocket: { port: 8080 }, successThreshold: 1 },
    startupProbe: { exec: { command: ["true"] }, terminationGracePeriodSeconds: 10 },
    lifecycle: {
      preStop: { sleep: { seconds: 5 } },
      postStart: { exec: { command: ["/bin/warm"] } },
    },
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
      runAsGroup: 1000,
      privileged: false,
      appArmorProfile: { type: "RuntimeDefault" },
    },
    stdin: false,
    tty: false,
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "FallbackToLogsOnError",
  }, {
    name: "sidecar",
    image: "envoy",
    readinessProbe: { grpc: { port: 9901, service: "ready" } },
  }],
  volumes: [
    {
      name: "conf",
      configMap: {
        name: "settings",
        defaultMode: 420,
        items: [{ key: "a", path: "a.conf", mode: 256 }],
      },
    },
    { name: "secret", secret: { secretName: "db", optional: true } },
    { name: "tmp", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } },
    { name: "data", persistentVolumeClaim: { claimName: "data", readOnly: false } },
    { name: "host", hostPath: { path: "/var/log", type: "Directory" } },
    {
      name: "token",
      projected: {
        sources: [{
          serviceAccountToken: { path: "token", expirationSeconds: 3600, audience: "api" },
        }],
      },
    },
    {
      name: "csi",
      csi: { driver: "secrets-store.csi.k8s.io", volumeAttributes: { provider: "vault" } },
    },
    {
      name: "eph",
      ephemeral: { volumeClaimTemplate: { spec: { accessModes: ["ReadWriteOnce"] } } },
    },
    {
      name: "down",
      downwardAPI: { items: [{ path: "labels", fieldRef: { fieldPath: "metadata.labels" } }] },
    },
  ],
};
const template = {
  metadata: { labels: { app: "web" }, annotations: { "a/b": "c" } },
  spec: podSpec,
};
const meta = (name: string) => ({ name, labels: { app: "web" }, annotations: { note: "x" } });

const MANIFESTS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["/api/v1/namespaces/default/pods", {
    apiVersion: "v1",
    kind: "Pod",
    metadata: meta("p"),
    spec: podSpec,
  }],
  ["/apis/apps/v1/namespaces/default/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta("d"),
    spec: {
      replicas: 3,
      revisionHistoryLimit: 5,
      progressDeadlineSeconds: 600,
      minReadySeconds: 5,
      paused: false,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: 0 } },
      template,
    },
  }],
  ["/apis/apps/v1/namespaces/default/replicasets", {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: meta("rs"),
    spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template },
  }],
  ["/apis/apps/v1/namespaces/default/statefulsets", {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: meta("s"),
    spec: {
      serviceName: "db",
      replicas: 3,
      podManagementPolicy: "Parallel",
      ordinals: { start: 1 },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Retain" },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      selector: { matchLabels: { app: "web" } },
      template,
      volumeClaimTemplates: [{
        apiVersion: "v1",
        kind: "PersistentVolumeClaim",
        metadata: { name: "data", labels: { app: "web" } },
        spec: {
          accessModes: ["ReadWriteOnce"],
          storageClassName: "fast",
          resources: { requests: { storage: "10Gi" } },
        },
      }],
    },
  }],
  ["/apis/apps/v1/namespaces/default/daemonsets", {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: meta("ds"),
    spec: {
      selector: { matchLabels: { app: "web" } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      template,
    },
  }],
  ["/apis/batch/v1/namespaces/default/jobs", {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta("j"),
    spec: {
      completions: 5,
      parallelism: 2,
      backoffLimit: 4,
      activeDeadlineSeconds: 600,
      ttlSecondsAfterFinished: 100,
      completionMode: "Indexed",
      backoffLimitPerIndex: 1,
      maxFailedIndexes: 2,
      podReplacementPolicy: "Failed",
      podFailurePolicy: {
        rules: [{
          action: "FailJob",
          onExitCodes: { containerName: "app", operator: "In", values: [42] },
        }],
      },
      successPolicy: { rules: [{ succeededIndexes: "0-2", succeededCount: 1 }] },
      suspend: false,
      template: { ...template, spec: { ...podSpec, restartPolicy: "Never" } },
    },
  }],
  ["/apis/batch/v1/namespaces/default/cronjobs", {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: meta("cj"),
    spec: {
      schedule: "*/5 * * * *",
      timeZone: "Etc/UTC",
      concurrencyPolicy: "Forbid",
      startingDeadlineSeconds: 60,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
      suspend: false,
      jobTemplate: {
        metadata: { labels: { app: "web" } },
        spec: {
          backoffLimit: 1,
          template: { ...template, spec: { ...podSpec, restartPolicy: "OnFailure" } },
        },
      },
    },
  }],
  ["/api/v1/namespaces/default/services", {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta("svc"),
    spec: {
      type: "LoadBalancer",
      selector: { app: "web" },
      ports: [{
        name: "http",
        port: 80,
        targetPort: "http",
        protocol: "TCP",
        appProtocol: "http",
        nodePort: 30080,
      }, {
        name: "grpc",
        port: 9090,
        targetPort: 9090,
      }],
      sessionAffinity: "ClientIP",
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } },
      externalTrafficPolicy: "Local",
      internalTrafficPolicy: "Cluster",
      ipFamilyPolicy: "PreferDualStack",
      ipFamilies: ["IPv4", "IPv6"],
      loadBalancerSourceRanges: ["10.0.0.0/8"],
      allocateLoadBalancerNodePorts: true,
      publishNotReadyAddresses: false,
      trafficDistribution: "PreferClose",
    },
  }],
  ["/api/v1/namespaces/default/endpoints", {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: meta("svc"),
    subsets: [{
      addresses: [{
        ip: "10.0.0.5",
        nodeName: "n1",
        targetRef: { kind: "Pod", name: "p", namespace: "default" },
      }],
      notReadyAddresses: [{ ip: "10.0.0.6", hostname: "b" }],
      ports: [{ name: "http", port: 8080, protocol: "TCP", appProtocol: "http" }],
    }],
  }],
  ["/apis/networking.k8s.io/v1/namespaces/default/ingresses", {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: {
      ...meta("ing"),
      annotations: { "nginx.ingress.kubernetes.io/rewrite-target": "/" },
    },
    spec: {
      ingressClassName: "nginx",
      defaultBackend: { service: { name: "svc", port: { number: 80 } } },
      tls: [{ hosts: ["a.example.com"], secretName: "tls" }],
      rules: [{
        host: "a.example.com",
        http: {
          paths: [{
            path: "/",
            pathType: "Prefix",
            backend: { service: { name: "svc", port: { name: "http" } } },
          }, {
            path: "/static",
            pathType: "ImplementationSpecific",
            backend: { resource: { apiGroup: "example.com", kind: "Bucket", name: "static" } },
          }],
        },
      }],
    },
  }],
  ["/api/v1/namespaces/default/persistentvolumeclaims", {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: meta("data"),
    spec: {
      accessModes: ["ReadWriteOnce"],
      volumeMode: "Filesystem",
      storageClassName: "fast",
      resources: { requests: { storage: "1Gi" }, limits: { storage: "2Gi" } },
      selector: { matchLabels: { tier: "fast" } },
      dataSourceRef: { apiGroup: "snapshot.storage.k8s.io", kind: "VolumeSnapshot", name: "snap" },
    },
  }],
  ["/api/v1/persistentvolumes", {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: meta("pv"),
    spec: {
      capacity: { storage: "10Gi" },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "fast",
      mountOptions: ["hard"],
      nfs: { server: "nfs.local", path: "/exports" },
      claimRef: { namespace: "default", name: "data" },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{
            matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }],
          }],
        },
      },
    },
  }],
  ["/api/v1/nodes", {
    apiVersion: "v1",
    kind: "Node",
    metadata: meta("n1"),
    spec: {
      podCIDR: "10.0.0.0/24",
      podCIDRs: ["10.0.0.0/24"],
      providerID: "kind://n1",
      taints: [{ key: "dedicated", value: "web", effect: "NoSchedule" }],
      unschedulable: false,
    },
  }],
];

/**
 * Every field of `sent` is in `stored` with its value; `stored` may hold more (the defaults
 * kube-apiserver adds: a Service's clusterIP, a port's protocol).
 */
function assertKept(stored: unknown, sent: unknown, path: string): void {
  if (Array.isArray(sent)) {
    assert.ok(Array.isArray(stored), `${path} is a list`);
    assert.equal(stored.length, sent.length, `${path}.length`);
    sent.forEach((v, i) => assertKept(stored[i], v, `${path}[${i}]`));
  } else if (typeof sent === "object" && sent !== null) {
    assert.ok(typeof stored === "object" && stored !== null, `${path} is an object`);
    for (const [k, v] of Object.entries(sent)) {
      assertKept((stored as Record<string, unknown>)[k], v, `${path}.${k}`);
    }
  } else {
    assert.equal(stored, sent, path);
  }
}

describe("SimulatedCluster built-in schemas: realistic manifests", () => {
  test("are accepted under Strict, every field kept", async () => {
    const c = cluster();
    for (const [path, manifest] of MANIFESTS) {
      const res = await send(c, "POST", `${path}?fieldValidation=Strict`, JSON.stringify(manifest));
      assert.equal(res.status, 201, `${manifest.kind}: ${await res.clone().text()}`);
      assert.equal(res.headers.get("warning"), null);
      const stored = await res.json() as Record<string, unknown>;
      for (const key of ["spec", "subsets"]) {
        if (Object.hasOwn(manifest, key)) {
          assertKept(stored[key], manifest[key], `${manifest.kind}.${key}`);
        }
      }
    }
    const counts = [
      pods,
      deployments,
      replicasets,
      statefulsets,
      daemonsets,
      jobs,
      cronjobs,
      services,
    ]
      .map((r) => c.list(r).length);
    assert.deepEqual(counts, [1, 1, 1, 1, 1, 1, 1, 1]);
    c.close();
  });

  test("status as kubelet and controllers write it is accepted", async () => {
    const c = cluster();
    await send(c, "POST", "/api/v1/namespaces/default/pods", JSON.stringify(MANIFESTS[0]![1]));
    const status = {
      phase: "Running",
      hostIP: "10.0.0.1",
      hostIPs: [{ ip: "10.0.0.1" }],
      podIP: "10.1.0.5",
      podIPs: [{ ip: "10.1.0.5" }],
      qosClass: "Burstable",
      startTime: "2026-01-01T00:00:00Z",
      observedGeneration: 1,
      conditions: [{
        type: "Ready",
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: "2026-01-01T00:00:01Z",
      }],
      containerStatuses: [{
        name: "app",
        image: "app:1",
        imageID: "sha256:1",
        containerID: "containerd://1",
        ready: true,
        started: true,
        restartCount: 2,
        state: { running: { startedAt: "2026-01-01T00:00:01Z" } },
        lastState: {
          terminated: {
            exitCode: 137,
            reason: "OOMKilled",
            signal: 9,
            finishedAt: "2026-01-01T00:00:00Z",
          },
        },
        resources: { limits: { cpu: "1" } },
        allocatedResources: { cpu: "100m" },
        volumeMounts: [{ name: "data", mountPath: "/data", readOnly: false }],
        user: { linux: { uid: 1000, gid: 1000, supplementalGroups: [1000] } },
      }],
      initContainerStatuses: [{
        name: "migrate",
        ready: false,
        restartCount: 0,
        image: "app:1",
        imageID: "",
        state: { waiting: { reason: "PodInitializing" } },
      }],
    };
    const res = await send(
      c,
      "PATCH",
      "/api/v1/namespaces/default/pods/p/status?fieldValidation=Strict",
      JSON.stringify({ status }),
      "application/merge-patch+json",
    );
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual((await res.json() as { status: unknown }).status, status);
    c.close();
  });
});

/** The schema at `path` below a kind's schema, as `kubectl explain` walks it. */
function explain(doc: Doc, kind: string, path: string[]): { schema: Schema; type: string } {
  const schemas = doc.components.schemas;
  const resolve = (s: Schema): [Schema, string | undefined] => {
    const allOf = s.allOf as Array<{ $ref: string }> | undefined;
    const $ref = allOf?.[0]?.$ref ?? s.$ref as string | undefined;
    if ($ref === undefined) return [s, undefined];
    const name = $ref.replace("#/components/schemas/", "");
    assert.ok(schemas[name], `component ${name}`);
    return [schemas[name]!, name.slice(name.lastIndexOf(".") + 1)];
  };
  const root = Object.values(schemas).find((s) =>
    (s["x-kubernetes-group-version-kind"] as Array<{ kind: string }> | undefined)?.some((g) =>
      g.kind === kind
    )
  );
  assert.ok(root, `schema of ${kind}`);
  let schema: Schema = root;
  let type = "Object";
  for (const field of path) {
    const properties = schema.properties as Record<string, Schema> | undefined;
    assert.ok(
      properties && Object.hasOwn(properties, field),
      `field ${field} of ${path.join(".")}`,
    );
    let s = properties[field]!;
    let name: string | undefined;
    if (s.type === "array") {
      [s, name] = resolve(s.items as Schema);
      type = `[]${name ?? s.type}`;
    } else {
      [s, name] = resolve(s);
      type = name ?? String(s.type);
    }
    schema = s;
  }
  return { schema, type };
}

describe("SimulatedCluster built-in schemas: OpenAPI v3 documents", () => {
  test("kubectl explain can walk pods, deployments and services to their leaves", async () => {
    const c = cluster();
    const doc = async (gv: string) =>
      await (await send(c, "GET", `/openapi/v3/${gv}`)).json() as Doc;
    const core = await doc("api/v1");
    const apps = await doc("apis/apps/v1");
    assert.equal(explain(core, "Pod", ["spec"]).type, "PodSpec");
    assert.equal(explain(core, "Pod", ["spec", "containers"]).type, "[]Container");
    assert.equal(explain(core, "Pod", ["spec", "containers", "image"]).type, "string");
    assert.equal(
      explain(core, "Pod", ["spec", "containers", "ports", "containerPort"]).type,
      "integer",
    );
    assert.equal(
      explain(core, "Pod", ["spec", "containers", "env", "valueFrom", "secretKeyRef"]).type,
      "SecretKeySelector",
    );
    assert.equal(
      explain(core, "Pod", ["spec", "containers", "resources", "limits"]).type,
      "object",
    );
    assert.equal(
      explain(core, "Pod", ["spec", "containers", "livenessProbe", "httpGet", "port"]).type,
      "IntOrString",
    );
    assert.equal(explain(core, "Pod", ["status", "conditions", "lastTransitionTime"]).type, "Time");
    assert.equal(
      explain(core, "Pod", ["status", "containerStatuses", "restartCount"]).type,
      "integer",
    );
    assert.equal(explain(core, "Service", ["spec", "ports", "targetPort"]).type, "IntOrString");
    assert.equal(explain(apps, "Deployment", ["spec", "replicas"]).type, "integer");
    assert.equal(
      explain(apps, "Deployment", ["spec", "template", "spec", "volumes", "configMap", "items"])
        .type,
      "[]KeyToPath",
    );
    assert.equal(explain(apps, "Deployment", ["spec", "selector"]).type, "LabelSelector");
    const replicas = explain(apps, "Deployment", ["spec", "replicas"]).schema;
    assert.equal(replicas.format, "int32");
    assert.match(String(replicas.description), /Number of desired pods/);
    const nodeName = explain(core, "Pod", ["spec", "nodeName"]).schema;
    assert.match(
      String(nodeName.description),
      /^NodeName indicates in which node this pod is scheduled/,
    );
    c.close();
  });

  test("list merge keys, int-or-string, quantities, times and open parts are described as kube-apiserver does", async () => {
    const c = cluster();
    const core = await (await send(c, "GET", "/openapi/v3/api/v1")).json() as Doc;
    const s = core.components.schemas;
    const podSpec = s["io.k8s.api.core.v1.PodSpec"]!.properties as Record<string, Schema>;
    assert.deepEqual(
      [
        podSpec.containers!["x-kubernetes-list-map-keys"],
        podSpec.containers!["x-kubernetes-patch-merge-key"],
      ],
      [["name"], "name"],
    );
    assert.equal(podSpec.tolerations!["x-kubernetes-list-type"], "atomic");
    const container = s["io.k8s.api.core.v1.Container"]!.properties as Record<string, Schema>;
    assert.deepEqual(container.ports!["x-kubernetes-list-map-keys"], ["containerPort", "protocol"]);
    assert.deepEqual(container.resources, {
      allOf: [{ $ref: "#/components/schemas/io.k8s.api.core.v1.ResourceRequirements" }],
      description: "Compute Resources required by this container.",
    });
    const ios = s["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]!;
    assert.equal(ios.format, "int-or-string");
    assert.equal(ios["x-kubernetes-int-or-string"], true);
    assert.deepEqual(s["io.k8s.apimachinery.pkg.api.resource.Quantity"]!.oneOf, [
      { type: "string" },
      { type: "number" },
    ]);
    assert.deepEqual(s["io.k8s.apimachinery.pkg.apis.meta.v1.Time"], {
      type: "string",
      format: "date-time",
    });
    const volume = s["io.k8s.api.core.v1.Volume"]!.properties as Record<string, Schema>;
    assert.deepEqual(volume.csi, { type: "object", "x-kubernetes-preserve-unknown-fields": true });
    const limits =
      (s["io.k8s.api.core.v1.ResourceRequirements"]!.properties as Record<string, Schema>).limits!;
    assert.deepEqual(limits.additionalProperties, {
      allOf: [{ $ref: "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity" }],
    });
    // Every reference resolves inside its document.
    for (const gv of ["api/v1", "apis/apps/v1", "apis/batch/v1", "apis/networking.k8s.io/v1"]) {
      const text = await (await send(c, "GET", `/openapi/v3/${gv}`)).text();
      const names = new Set(Object.keys((JSON.parse(text) as Doc).components.schemas));
      for (const m of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        assert.ok(names.has(m[1]!), `${gv}: ${m[1]}`);
      }
    }
    c.close();
  });
});
