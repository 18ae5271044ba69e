/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_HUB_URL: string
  readonly VITE_KEY_ID: string
}
