// Compile-time tests (type-checked by `deno check`, never run): a metadata-only descriptor
// types its objects as PartialObjectMetadata, whatever the resource.
import {
  createInformer,
  KubeClient,
  metadataOnly,
  type PartialObjectMetadata,
  pods,
  type SharedInformer,
  SharedInformerFactory,
} from "../../mod.ts";
import { deployments } from "../../src/kubernetes_types/mod.ts";

declare const client: KubeClient;

export const metaPods: SharedInformer<PartialObjectMetadata> = createInformer(client, {
  resource: metadataOnly(pods),
});
metaPods.addEventHandler({
  onAdd: (m) => {
    const labels: Record<string, string> | undefined = m.metadata.labels;
    // @ts-expect-error metadata-only objects have no spec
    void m.spec;
    void labels;
  },
});

// Typed descriptors too: the metadata view drops the Deployment type.
const metaDeployments = new SharedInformerFactory(client).informerFor(metadataOnly(deployments));
export const owners = metaDeployments.store.list().map((d) => d.metadata.ownerReferences);
// @ts-expect-error no spec.replicas on metadata
void metaDeployments.store.list()[0]?.spec.replicas;

export const one: Promise<PartialObjectMetadata> = client.get(metadataOnly(pods), "web-1", {
  namespace: "default",
});
