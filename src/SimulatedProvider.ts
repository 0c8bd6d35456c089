/**
 * The simulated model behind every model route (`Routes.openai`, `Routes.anthropic`,
 * `Routes.gemini`; `network.llm`), as a public face: the service, its API and the shapes its
 * driver protocol uses. The model itself lives in `provider/`.
 */
export { DEFAULT_EPOCH, SimulatedProvider, SimulatedProviderApi } from "./provider/SimulatedProvider.ts"
export type {
  DriverFinish,
  DriverMethod,
  DriverNotices,
  LlmApi,
  LlmInvocationNotice,
  PendingInvocation,
  ProviderOptions,
  ProviderState,
  RuleState
} from "./provider/SimulatedProvider.ts"
