import { App } from 'aws-cdk-lib';
import { DispatchSetupError } from './constructs/dispatch.ts';
import { EnvironmentSelectionError } from './environment-settings.ts';
import { addScanServiceStack } from './scan-service-app.ts';

// `cdk synth|deploy -c env=dev|prod`: settings come from cdk.json context.environments.<env>.
const app = new App();
try {
  addScanServiceStack(app);
} catch (error) {
  // An operator mistake gets one line that says what to pass, not a stack trace.
  if (!(error instanceof EnvironmentSelectionError || error instanceof DispatchSetupError)) throw error;
  console.error(error.message);
  process.exit(1);
}
app.synth();
