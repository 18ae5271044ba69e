// A partner's product page: the configurator from the npm package, with the shop's own summary
// line fed by the component's events.
import { useRef, useState } from 'react'
import {
  Configurator,
  type ConfiguratorEvent,
  type ConfiguratorHandle,
} from '@cad-configurator/sdk/react'
import type { RenderResult } from '@cad-configurator/sdk'

declare global {
  interface Window {
    /** What the page saw, for the end-to-end test. */
    partnerEvents: ConfiguratorEvent['type'][]
    partnerRenders: { dagHash: string; meshes: string[] }[]
    /** The configurator's handle (share link, cart snapshot). */
    cad: ConfiguratorHandle | null
    partnerReady: Record<string, unknown> | null
  }
}
window.partnerEvents = []
window.partnerRenders = []
window.partnerReady = null

export default function App() {
  const [last, setLast] = useState<RenderResult | null>(null)
  const cad = useRef<ConfiguratorHandle>(null)
  const onEvent = (event: ConfiguratorEvent) => {
    window.partnerEvents.push(event.type)
    window.cad = cad.current
    if (event.type === 'ready') window.partnerReady = event.values
    if (event.type === 'rendered') {
      window.partnerRenders.push({
        dagHash: event.result.dagHash,
        meshes: event.result.parts.map((p) => p.mesh.hash),
      })
      setLast(event.result)
    }
  }
  return (
    <main style={{ maxWidth: 1100, margin: '0 auto', padding: 16, fontFamily: 'system-ui' }}>
      <h1>Wall bracket — made to measure</h1>
      <Configurator
        ref={cad}
        keyId={import.meta.env.VITE_KEY_ID}
        projectKey="wall-bracket"
        hubBaseUrl={import.meta.env.VITE_HUB_URL}
        compact
        style={{ height: 560 }}
        onEvent={onEvent}
      />
      <p id="summary" data-dag-hash={last?.dagHash ?? ''}>
        {last ? `${last.triangles} triangles` : 'Loading…'}
      </p>
    </main>
  )
}
