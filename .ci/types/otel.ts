/**
 * Type matrix consumer: `agent-messaging-sdk/otel` with the real
 * `@opentelemetry/api` (the optional peer), and the observer surface.
 */
import { metrics, trace } from '@opentelemetry/api';
import { Agent } from 'agent-messaging-sdk';
import {
  instrument,
  METRIC_NAMES,
  type AgentObserver,
  type InstrumentOptions,
  type ObservedOutcome,
} from 'agent-messaging-sdk/otel';

export function main(): void {
  const agent = new Agent({ baseUrl: 'https://api.example.com', agentId: 'a1', token: 'hsk_x' });
  const options: InstrumentOptions = {
    tracerProvider: trace.getTracerProvider(),
    meterProvider: metrics.getMeterProvider(),
  };
  const stop: () => void = instrument(agent, options);
  const name: string = METRIC_NAMES.handlerDuration;
  const outcomes: ObservedOutcome[] = [];
  const observer: AgentObserver = {
    delivery: (_d) => ({
      step: (_step, run) => run(),
      end: (outcome) => void outcomes.push(outcome),
    }),
    operation: (info, run) => (void info.operation, run()),
  };
  const unobserve = agent.observe(observer);
  unobserve();
  stop();
  void name;
}
