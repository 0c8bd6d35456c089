/**
 * The simulated model behind `Routes.openai` (`network.llm`), as a public face: the service, its
 * API and the shapes its driver protocol uses. The model itself lives in `provider/`.
 */
export { SimulatedProvider, SimulatedProviderApi } from "./provider/SimulatedProvider.ts"
export type {
  DriverFinish,
  DriverMethod,
  DriverNotices,
  LlmInvocationNotice,
  PendingInvocation,
  ProviderOptions,
  ProviderState,
  RuleState
} from "./provider/SimulatedProvider.ts"
