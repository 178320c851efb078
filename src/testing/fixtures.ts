/**
 * Deterministic object fixtures shared by tests, benchmarks and the simulated cluster's bulk
 * seeder: realistic pods (2-4 KB of JSON with labels, annotations, managedFields, status and
 * some non-ASCII text), config maps, namespaces and widgets.
 * @module
 */
import type { KubeObject } from "../client/types.ts";

/** Options of the fixture builders. */
export interface FixtureOptions {
  /**
   * Namespace of the object (ignored for namespaces).
   * @default `ns-${index % 10}`
   */
  namespace?: string;
  /**
   * Name of the object.
   * @default a name derived from the index, e.g. `pod-000042`
   */
  name?: string;
  /**
   * Extra labels, merged over the generated ones.
   * @default {}
   */
  labels?: Record<string, string>;
}

function mix(n: number): number {
  let x = (n + 0x9e3779b9) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}

const APPS = ["web", "api", "worker", "cache", "db", "gateway", "batch", "metrics"];
const TIERS = ["frontend", "backend", "data"];
const PHASES = ["Running", "Running", "Running", "Pending", "Succeeded", "Failed"];
const NOTES = [
  "Überwachung aktiv – Grüße aus München",
  "監視対象のポッド ✓",
  "réplica primaire, ne pas supprimer",
  "Ведущий экземпляр 🚀",
  "plain ascii note",
];

function ts(index: number, offsetSeconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + (index * 7 + offsetSeconds) * 1000).toISOString()
    .replace(/\.\d{3}Z$/, "Z");
}

function pad(index: number): string {
  return String(index).padStart(6, "0");
}

/**
 * A realistic pod (2-4 KB of JSON), fully determined by `index`.
 *
 * @example
 * ```ts
 * import { podFixture } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * const pod = podFixture(42, { namespace: "default" });
 * assert.equal(pod.metadata.name, "pod-000042");
 * assert.ok(JSON.stringify(pod).length > 2000); // about the size of a real pod
 * ```
 */
export function podFixture(index: number, options?: FixtureOptions): KubeObject {
  const h = mix(index);
  const app = APPS[h % APPS.length]!;
  const tier = TIERS[(h >>> 4) % TIERS.length]!;
  const phase = PHASES[(h >>> 8) % PHASES.length]!;
  const name = options?.name ?? `pod-${pad(index)}`;
  const namespace = options?.namespace ?? `ns-${index % 10}`;
  const node = `node-${(h >>> 12) % 50}`;
  const hash = (h >>> 3).toString(16).padStart(8, "0").slice(0, 10);
  const ip = `10.${(h >>> 16) & 255}.${(h >>> 24) & 255}.${index & 255}`;
  const image = `registry.example.com/team/${app}:v1.${h % 20}.${(h >>> 5) % 10}`;
  const managedEntry = (manager: string, operation: string, fields: Record<string, unknown>) => ({
    manager,
    operation,
    apiVersion: "v1",
    time: ts(index, 1),
    fieldsType: "FieldsV1",
    fieldsV1: fields,
  });
  return {
    metadata: {
      name,
      namespace,
      labels: {
        app,
        tier,
        "app.kubernetes.io/name": app,
        "app.kubernetes.io/instance": `${app}-${index % 5}`,
        "pod-template-hash": hash,
        ...options?.labels,
      },
      annotations: {
        "kubernetes.io/config.seen": ts(index, 0),
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
        "example.com/note": NOTES[index % NOTES.length]!,
      },
      ownerReferences: [{
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: `${app}-${hash}`,
        uid: `00000000-0000-4000-8000-${(h >>> 0).toString(16).padStart(12, "0").slice(0, 12)}`,
        controller: true,
        blockOwnerDeletion: true,
      }],
      managedFields: [
        managedEntry("kube-controller-manager", "Update", {
          "f:metadata": {
            "f:labels": { ".": {}, "f:app": {}, "f:pod-template-hash": {}, "f:tier": {} },
            "f:ownerReferences": { ".": {}, [`k:{"uid":"${hash}"}`]: {} },
          },
          "f:spec": {
            "f:containers": {
              [`k:{"name":"${app}"}`]: {
                ".": {},
                "f:image": {},
                "f:imagePullPolicy": {},
                "f:name": {},
                "f:ports": {},
                "f:resources": { ".": {}, "f:limits": {}, "f:requests": {} },
              },
            },
            "f:dnsPolicy": {},
            "f:restartPolicy": {},
            "f:schedulerName": {},
          },
        }),
        managedEntry("kubelet", "Update", {
          "f:status": {
            "f:conditions": { [`k:{"type":"Ready"}`]: { ".": {}, "f:status": {}, "f:type": {} } },
            "f:containerStatuses": {},
            "f:hostIP": {},
            "f:phase": {},
            "f:podIP": {},
            "f:startTime": {},
          },
        }),
      ],
    },
    spec: {
      containers: [{
        name: app,
        image,
        ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }, {
          name: "metrics",
          containerPort: 9090,
          protocol: "TCP",
        }],
        env: [
          { name: "APP_NAME", value: app },
          { name: "LOG_LEVEL", value: "info" },
          { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
        ],
        resources: {
          limits: { cpu: "500m", memory: "256Mi" },
          requests: { cpu: "100m", memory: "128Mi" },
        },
        volumeMounts: [{
          name: "kube-api-access",
          readOnly: true,
          mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
        }],
        terminationMessagePath: "/dev/termination-log",
        terminationMessagePolicy: "File",
        imagePullPolicy: "IfNotPresent",
      }],
      volumes: [{
        name: "kube-api-access",
        projected: {
          sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: "token" } }],
          defaultMode: 420,
        },
      }],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: node,
      schedulerName: "default-scheduler",
      priority: 0,
    },
    status: {
      phase,
      conditions: [
        { type: "Initialized", status: "True", lastTransitionTime: ts(index, 2) },
        {
          type: "Ready",
          status: phase === "Running" ? "True" : "False",
          lastTransitionTime: ts(index, 5),
        },
        { type: "PodScheduled", status: "True", lastTransitionTime: ts(index, 1) },
      ],
      hostIP: `192.168.${(h >>> 12) % 50}.10`,
      podIP: ip,
      podIPs: [{ ip }],
      startTime: ts(index, 2),
      containerStatuses: [{
        name: app,
        state: phase === "Running"
          ? { running: { startedAt: ts(index, 4) } }
          : { waiting: { reason: "ContainerCreating" } },
        ready: phase === "Running",
        restartCount: h % 3,
        image,
        imageID: `${image}@sha256:${hash}${hash}${hash}`,
        started: phase === "Running",
      }],
      qosClass: "Burstable",
    },
  };
}

/**
 * A config map (about 300 bytes), determined by `index`.
 *
 * @example
 * ```ts
 * import { configMapFixture } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * assert.equal(configMapFixture(1).metadata.name, "cm-000001");
 * ```
 */
export function configMapFixture(index: number, options?: FixtureOptions): KubeObject {
  return {
    metadata: {
      name: options?.name ?? `cm-${pad(index)}`,
      namespace: options?.namespace ?? `ns-${index % 10}`,
      labels: { app: APPS[mix(index) % APPS.length]!, ...options?.labels },
    },
    data: {
      "config.yaml": `replicas: ${index % 7}\ngreeting: "grüß dich"\n`,
      index: String(index),
    },
  };
}

/**
 * A namespace, determined by `index`.
 *
 * @example
 * ```ts
 * import { namespaceFixture } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * assert.equal(namespaceFixture(3).metadata.name, "ns-3");
 * ```
 */
export function namespaceFixture(index: number, options?: FixtureOptions): KubeObject {
  return {
    metadata: {
      name: options?.name ?? `ns-${index}`,
      labels: { "kubernetes.io/metadata.name": options?.name ?? `ns-${index}`, ...options?.labels },
    },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

/**
 * A widget (the simulated cluster's custom resource), determined by `index`.
 *
 * @example
 * ```ts
 * import { widgetFixture } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * assert.deepEqual(widgetFixture(5).spec, { size: 5, color: "blue" });
 * ```
 */
export function widgetFixture(index: number, options?: FixtureOptions): KubeObject {
  return {
    metadata: {
      name: options?.name ?? `widget-${pad(index)}`,
      namespace: options?.namespace ?? `ns-${index % 10}`,
      labels: { app: APPS[mix(index) % APPS.length]!, ...options?.labels },
    },
    spec: { size: index % 10, color: ["red", "green", "blue"][index % 3] },
    status: { ready: index % 2 === 0 },
  };
}

/**
 * A deployment (`apps/v1`), determined by `index`: `spec.replicas` is `index % 5`.
 *
 * @example
 * ```ts
 * import { deploymentFixture } from "@kinformer/kinformer/testing";
 * import assert from "node:assert/strict";
 * assert.equal(deploymentFixture(7).metadata.name, "deploy-000007");
 * ```
 */
export function deploymentFixture(index: number, options?: FixtureOptions): KubeObject {
  const app = APPS[mix(index) % APPS.length]!;
  const name = options?.name ?? `deploy-${pad(index)}`;
  return {
    metadata: {
      name,
      namespace: options?.namespace ?? `ns-${index % 10}`,
      labels: { app, ...options?.labels },
    },
    spec: {
      replicas: index % 5,
      selector: { matchLabels: { app, deployment: name } },
      template: {
        metadata: { labels: { app, deployment: name } },
        spec: { containers: [{ name: app, image: `registry.example.com/team/${app}:v1` }] },
      },
    },
  };
}
