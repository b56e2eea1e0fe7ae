import { useRoom } from './socket';

function ProjectRoom({ projectId }: { projectId: string }) {
  useRoom({ projectId });
  return null;
}

/** Joins the room of each project while mounted: project events (notifications, jobs) arrive there. */
export function ProjectRooms({ projectIds }: { projectIds: readonly string[] }) {
  return (
    <>
      {projectIds.map((id) => (
        <ProjectRoom key={id} projectId={id} />
      ))}
    </>
  );
}
