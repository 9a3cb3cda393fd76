/**
 * An echo bot with OpenTelemetry traces and metrics (docs/observability.md).
 * Spans and metrics go to the console here; in production, give the providers
 * an OTLP exporter instead (the rest stays as it is).
 *
 *   ams serve --dev --port 8080 &
 *   ams dev bootstrap > .env
 *   npm install @opentelemetry/api @opentelemetry/sdk-trace-base @opentelemetry/sdk-metrics
 *   npx tsx --env-file=.env examples/otel-bot.ts
 */
// #region setup
import { Agent } from 'agent-messaging-sdk';
import { instrument } from 'agent-messaging-sdk/otel';
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { agentEnv } from './env.js';

const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())],
});
const meterProvider = new MeterProvider({
  readers: [
    new PeriodicExportingMetricReader({
      exporter: new ConsoleMetricExporter(),
      exportIntervalMillis: 60_000,
    }),
  ],
});

// Closing is ours: the providers flush what they hold once the agent has closed.
const agent = new Agent({ ...agentEnv(), shutdownSignals: { exit: false } });
instrument(agent, { tracerProvider, meterProvider });
// #endregion setup

agent.on('message.new', async (msg) => {
  await msg.reply(`echo: ${msg.text ?? JSON.stringify(msg.payload)}`);
});
agent.on('error', (err) => console.error('error:', err));
agent.on('fatal', (err) => {
  console.error('stopped for good:', err.message);
  process.exit(1);
});
// #region shutdown
agent.on('closed', () => {
  void Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]).then(() => {
    console.log('otel-bot: telemetry flushed');
  });
});
// #endregion shutdown

await agent.connect();
console.log(`otel-bot: connected as ${agent.agentId}`);
